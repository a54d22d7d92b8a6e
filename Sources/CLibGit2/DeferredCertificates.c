// The system's CA certificates, parsed when a TLS connection first needs them rather than when libgit2 starts.
//
// Debian's libgit2 is built with mbedTLS, and git_libgit2_init() parses the whole CA bundle
// (/etc/ssl/certs/ca-certificates.crt, some 140 certificates in base64) on every start: about 4 ms of CPU, more
// than half of what `nb add` or `nb status` spend on libgit2 at all, for the rare command that opens an https
// remote. libgit2 offers no setting to skip it, so nb takes the one call it makes for that
// (mbedtls_x509_crt_parse_file) and remembers the chain and file instead; the first TLS session
// (mbedtls_ssl_setup, which libgit2 calls for every https connection before the handshake) parses every chain
// still pending into the same structure libgit2 handed to the configuration, then goes on. A chain libgit2 frees
// first (a new location set with GIT_OPT_SET_SSL_CERT_LOCATIONS) is forgotten.
//
// How: these definitions live in the nb executable, which Swift links with --export-dynamic, and the dynamic
// loader binds the references of libraries loaded later (libgit2, mbedTLS's own) to the executable's symbols
// first; each definition finds mbedTLS's own with dlsym(RTLD_NEXT). A libgit2 built with OpenSSL, or a platform
// without this binding order (macOS), never calls them: nothing changes there. Should a handshake ever run without
// the parse, the chain is empty and every certificate fails to verify (nb's certificate check refuses it): the
// failure is closed, never open.

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

// mbedTLS's types, only ever handled by pointer here.
typedef struct mbedtls_x509_crt mbedtls_x509_crt;
typedef struct mbedtls_ssl_context mbedtls_ssl_context;
typedef struct mbedtls_ssl_config mbedtls_ssl_config;

// mbedTLS's MBEDTLS_ERR_X509_FILE_IO_ERROR: what a failed look-up of the real function reports.
#define NB_X509_FILE_IO_ERROR (-0x2900)

int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path);
void mbedtls_x509_crt_free(mbedtls_x509_crt *chain);
int mbedtls_ssl_setup(mbedtls_ssl_context *ssl, const mbedtls_ssl_config *conf);

typedef struct Pending {
  mbedtls_x509_crt *chain;
  char *path;
  struct Pending *next;
} Pending;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Pending *pending;

static void *real(const char *name) { return dlsym(RTLD_NEXT, name); }

int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path) {
  Pending *entry = malloc(sizeof *entry);
  char *copy = path != NULL ? strdup(path) : NULL;
  if (entry == NULL || copy == NULL) {
    free(entry);
    free(copy);
    int (*parse)(mbedtls_x509_crt *, const char *) = real("mbedtls_x509_crt_parse_file");
    return parse != NULL ? parse(chain, path) : NB_X509_FILE_IO_ERROR;
  }
  entry->chain = chain;
  entry->path = copy;
  pthread_mutex_lock(&lock);
  entry->next = pending;
  pending = entry;
  pthread_mutex_unlock(&lock);
  return 0;
}

void mbedtls_x509_crt_free(mbedtls_x509_crt *chain) {
  pthread_mutex_lock(&lock);
  for (Pending **link = &pending; *link != NULL;) {
    Pending *entry = *link;
    if (entry->chain == chain) {
      *link = entry->next;
      free(entry->path);
      free(entry);
    } else {
      link = &entry->next;
    }
  }
  pthread_mutex_unlock(&lock);
  void (*release)(mbedtls_x509_crt *) = real("mbedtls_x509_crt_free");
  if (release != NULL) release(chain);
}

int mbedtls_ssl_setup(mbedtls_ssl_context *ssl, const mbedtls_ssl_config *conf) {
  int (*parse)(mbedtls_x509_crt *, const char *) = real("mbedtls_x509_crt_parse_file");
  int (*setup)(mbedtls_ssl_context *, const mbedtls_ssl_config *) = real("mbedtls_ssl_setup");
  pthread_mutex_lock(&lock);
  // Oldest first, as libgit2 made them; a file that fails to parse leaves its chain with what did (as libgit2's own
  // call would have, whose error it only reports).
  Pending *reversed = NULL;
  while (pending != NULL) {
    Pending *entry = pending;
    pending = entry->next;
    entry->next = reversed;
    reversed = entry;
  }
  while (reversed != NULL) {
    Pending *entry = reversed;
    reversed = entry->next;
    if (parse != NULL) parse(entry->chain, entry->path);
    free(entry->path);
    free(entry);
  }
  pthread_mutex_unlock(&lock);
  return setup != NULL ? setup(ssl, conf) : -1;
}

#endif
