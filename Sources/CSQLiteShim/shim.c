// The shim is header-only (a static inline function); SwiftPM wants one source file in a C target.
#include "CSQLiteShim.h"
