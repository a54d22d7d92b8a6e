#ifndef NB_CLIBXML2_H
#define NB_CLIBXML2_H

// A streaming XML reader for InkKit's InkML import, on libxml2's xmlTextReader, loaded the first time it is used
// (see LazyLibXML2.c for why). The names are nb's; each function is one libxml2 call or a small composition.

#include <stddef.h>

/// One open reader over a buffer the caller keeps alive until nb_xml_close.
typedef struct nb_xml_reader nb_xml_reader;

/// The kinds of node nb_xml_next stops at (libxml2's xmlReaderTypes values); others are skipped.
enum {
  NB_XML_ELEMENT = 1,
  NB_XML_TEXT = 3,
  NB_XML_CDATA = 4,
  NB_XML_WHITESPACE = 13,
  NB_XML_SIGNIFICANT_WHITESPACE = 14,
  NB_XML_END_ELEMENT = 15,
};

/// A reader over `length` bytes at `bytes`, or NULL when libxml2 cannot be loaded (nb_xml_load_error says why) or
/// refuses the buffer. Network access and external entities are off; line numbers above 65 535 are kept.
nb_xml_reader *nb_xml_open(const char *bytes, int length);

/// Why libxml2 could not be loaded: the names tried and the loader's message; "" when it loaded.
const char *nb_xml_load_error(void);

/// Moves to the next node: its kind (NB_XML_*), 0 at the end of the document, -1 on an error (nb_xml_error).
int nb_xml_next(nb_xml_reader *reader);

/// The current node's local name, namespace URI (NULL: none), and text (NULL for elements).
const char *nb_xml_local_name(nb_xml_reader *reader);
const char *nb_xml_namespace(nb_xml_reader *reader);
const char *nb_xml_value(nb_xml_reader *reader);

/// Whether the current element is written `<empty/>` (the reader reports no end element for it).
int nb_xml_is_empty_element(nb_xml_reader *reader);

/// The line the current node starts on (1-based), or the parser's line when the node has none.
long nb_xml_line(nb_xml_reader *reader);

/// Moves to the current element's next attribute that is not a namespace declaration: 1 when it moved, 0 when
/// none is left (the reader is then back on the element). nb_xml_attribute_name gives its qualified name
/// (`xml:id`), nb_xml_value its value.
int nb_xml_next_attribute(nb_xml_reader *reader);
const char *nb_xml_attribute_name(nb_xml_reader *reader);

/// The first error libxml2 reported (one line, without its trailing newline), and its line; "" and 0 if none.
const char *nb_xml_error(nb_xml_reader *reader);
int nb_xml_error_line(nb_xml_reader *reader);

void nb_xml_close(nb_xml_reader *reader);

#endif
