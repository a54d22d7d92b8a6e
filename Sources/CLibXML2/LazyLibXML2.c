// libxml2, loaded the first time an InkML document is read.
//
// Only `nb ink import` of an InkML file parses XML. Foundation's XMLParser (FoundationXML) would do, but linking it
// makes every nb process map libxml2, ICU's 30 MB of data, liblzma and libstdc++ and run their relocations: about a
// millisecond of each command's start-up, and nb would not start at all on a machine without libxml2. This file
// loads libxml2 with dlopen on first use instead and exposes the few calls of its streaming reader (xmlTextReader)
// that InkKit needs, under nb's own names.
//
// The prototypes below are libxml2's, as xmlreader.h and tree.h declare them; the reader API has kept its ABI since
// libxml2 2.5 (its handles are opaque pointers, its strings `xmlChar *`, i.e. UTF-8 bytes), which lets nb build
// without libxml2's development headers. The sonames tried cover the 2.x ABI (libxml2.so.2) and the one 2.14 began.

#include "CLibXML2.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char xmlChar;
typedef struct xmlTextReader xmlTextReader;
typedef struct xmlNode xmlNode;
typedef void (*xmlTextReaderErrorFunc)(void *arg, const char *message, int severity, void *locator);

// xmlParserOption values: no network access; line numbers past 65 535 kept.
enum { XML_PARSE_NONET = 1 << 11, XML_PARSE_BIG_LINES = 1 << 22 };
// xmlParserSeverities values that mean the document is wrong (the others are warnings).
enum { XML_PARSER_SEVERITY_VALIDITY_ERROR = 2, XML_PARSER_SEVERITY_ERROR = 4 };

static struct {
  void (*initParser)(void);
  xmlTextReader *(*readerForMemory)(const char *buffer, int size, const char *url, const char *encoding, int options);
  int (*read)(xmlTextReader *reader);
  int (*nodeType)(xmlTextReader *reader);
  const xmlChar *(*localName)(xmlTextReader *reader);
  const xmlChar *(*name)(xmlTextReader *reader);
  const xmlChar *(*namespaceURI)(xmlTextReader *reader);
  const xmlChar *(*value)(xmlTextReader *reader);
  int (*isEmptyElement)(xmlTextReader *reader);
  int (*moveToNextAttribute)(xmlTextReader *reader);
  int (*moveToElement)(xmlTextReader *reader);
  int (*isNamespaceDecl)(xmlTextReader *reader);
  xmlNode *(*currentNode)(xmlTextReader *reader);
  long (*getLineNo)(const xmlNode *node);
  int (*parserLineNumber)(xmlTextReader *reader);
  void (*setErrorHandler)(xmlTextReader *reader, xmlTextReaderErrorFunc function, void *arg);
  int (*locatorLineNumber)(void *locator);
  void (*freeReader)(xmlTextReader *reader);
} xml;

static const char *const candidates[] = {
#if defined(__APPLE__)
  "libxml2.2.dylib",
  "libxml2.dylib",
#else
  "libxml2.so.2",
  "libxml2.so.16",
  "libxml2.so",
#endif
};

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static int loaded;
static char loadError[768];

#define NB_XML_BIND(field, symbol)                                                                             \
  if ((*(void **)&xml.field = dlsym(library, #symbol)) == NULL) {                                              \
    snprintf(loadError, sizeof loadError, "%s has no %s", name, #symbol);                                      \
    return;                                                                                                    \
  }

static void load(void) {
  void *library = NULL;
  const char *name = NULL;
  char tried[256] = "";
  char firstError[256] = "";
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && library == NULL; i++) {
    library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (library != NULL) {
      name = candidates[i];
      break;
    }
    const char *error = dlerror();
    if (firstError[0] == '\0' && error != NULL) snprintf(firstError, sizeof firstError, "%s", error);
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", candidates[i]);
  }
  if (library == NULL) {
    snprintf(loadError, sizeof loadError, "cannot load libxml2 (tried %s: %s)", tried, firstError);
    return;
  }
  NB_XML_BIND(initParser, xmlInitParser)
  NB_XML_BIND(readerForMemory, xmlReaderForMemory)
  NB_XML_BIND(read, xmlTextReaderRead)
  NB_XML_BIND(nodeType, xmlTextReaderNodeType)
  NB_XML_BIND(localName, xmlTextReaderConstLocalName)
  NB_XML_BIND(name, xmlTextReaderConstName)
  NB_XML_BIND(namespaceURI, xmlTextReaderConstNamespaceUri)
  NB_XML_BIND(value, xmlTextReaderConstValue)
  NB_XML_BIND(isEmptyElement, xmlTextReaderIsEmptyElement)
  NB_XML_BIND(moveToNextAttribute, xmlTextReaderMoveToNextAttribute)
  NB_XML_BIND(moveToElement, xmlTextReaderMoveToElement)
  NB_XML_BIND(isNamespaceDecl, xmlTextReaderIsNamespaceDecl)
  NB_XML_BIND(currentNode, xmlTextReaderCurrentNode)
  NB_XML_BIND(getLineNo, xmlGetLineNo)
  NB_XML_BIND(parserLineNumber, xmlTextReaderGetParserLineNumber)
  NB_XML_BIND(setErrorHandler, xmlTextReaderSetErrorHandler)
  NB_XML_BIND(locatorLineNumber, xmlTextReaderLocatorLineNumber)
  NB_XML_BIND(freeReader, xmlFreeTextReader)
  // Once, before any parsing: libxml2's global state is not set up thread-safely on first use.
  xml.initParser();
  loaded = 1;
}

struct nb_xml_reader {
  xmlTextReader *reader;
  char error[512];
  int errorLine;
};

const char *nb_xml_load_error(void) {
  pthread_once(&loadOnce, load);
  return loaded ? "" : loadError;
}

/// Keeps the first error, as one line: libxml2 would otherwise print every error to stderr.
static void keepError(void *arg, const char *message, int severity, void *locator) {
  struct nb_xml_reader *reader = arg;
  if (severity != XML_PARSER_SEVERITY_ERROR && severity != XML_PARSER_SEVERITY_VALIDITY_ERROR) return;
  if (reader->error[0] != '\0' || message == NULL) return;
  snprintf(reader->error, sizeof reader->error, "%s", message);
  for (char *c = reader->error; *c != '\0'; c++) {
    if (*c == '\n' || *c == '\r') *c = ' ';
  }
  size_t length = strlen(reader->error);
  while (length > 0 && reader->error[length - 1] == ' ') reader->error[--length] = '\0';
  reader->errorLine = locator != NULL ? xml.locatorLineNumber(locator) : 0;
}

nb_xml_reader *nb_xml_open(const char *bytes, int length) {
  pthread_once(&loadOnce, load);
  if (!loaded) return NULL;
  struct nb_xml_reader *reader = calloc(1, sizeof *reader);
  if (reader == NULL) return NULL;
  reader->reader = xml.readerForMemory(bytes, length, NULL, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
  if (reader->reader == NULL) {
    free(reader);
    return NULL;
  }
  xml.setErrorHandler(reader->reader, keepError, reader);
  return reader;
}

int nb_xml_next(nb_xml_reader *reader) {
  for (;;) {
    int status = xml.read(reader->reader);
    if (status != 1) return status == 0 && reader->error[0] == '\0' ? 0 : -1;
    int type = xml.nodeType(reader->reader);
    switch (type) {
    case NB_XML_ELEMENT:
    case NB_XML_TEXT:
    case NB_XML_CDATA:
    case NB_XML_WHITESPACE:
    case NB_XML_SIGNIFICANT_WHITESPACE:
    case NB_XML_END_ELEMENT:
      return type;
    default:
      continue;
    }
  }
}

const char *nb_xml_local_name(nb_xml_reader *reader) { return (const char *)xml.localName(reader->reader); }
const char *nb_xml_namespace(nb_xml_reader *reader) { return (const char *)xml.namespaceURI(reader->reader); }
const char *nb_xml_value(nb_xml_reader *reader) { return (const char *)xml.value(reader->reader); }
const char *nb_xml_attribute_name(nb_xml_reader *reader) { return (const char *)xml.name(reader->reader); }
int nb_xml_is_empty_element(nb_xml_reader *reader) { return xml.isEmptyElement(reader->reader) == 1; }

long nb_xml_line(nb_xml_reader *reader) {
  xmlNode *node = xml.currentNode(reader->reader);
  long line = node != NULL ? xml.getLineNo(node) : -1;
  return line > 0 ? line : xml.parserLineNumber(reader->reader);
}

int nb_xml_next_attribute(nb_xml_reader *reader) {
  while (xml.moveToNextAttribute(reader->reader) == 1) {
    if (xml.isNamespaceDecl(reader->reader) != 1) return 1;
  }
  xml.moveToElement(reader->reader);
  return 0;
}

const char *nb_xml_error(nb_xml_reader *reader) { return reader->error; }
int nb_xml_error_line(nb_xml_reader *reader) { return reader->errorLine; }

void nb_xml_close(nb_xml_reader *reader) {
  if (reader == NULL) return;
  xml.freeReader(reader->reader);
  free(reader);
}
