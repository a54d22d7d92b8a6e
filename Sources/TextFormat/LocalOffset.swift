import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's offset from UTC, as libc's `localtime_r` gives it: `TZ`, else `/etc/localtime`, the same sources
/// `TimeZone.current` reads. Asked this way, a commit or a stamp does not set up Foundation's time zones (ICU):
/// about half a millisecond of every command that writes.
package enum LocalOffset {
  /// The offset in seconds (east positive) in effect at `seconds` since 1970.
  package static func seconds(at seconds: Double) -> Int {
    var time = time_t(seconds)
    var fields = tm()
    guard localtime_r(&time, &fields) != nil else {
      return TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))
    }
    return Int(fields.tm_gmtoff)
  }
}
