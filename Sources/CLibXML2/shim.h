#ifndef CAREPORTAL_CLIBXML2_SHIM_H
#define CAREPORTAL_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
// libxml2's headers would pull in the system ICU, whose types clash with the copy inside Foundation
// in any module that imports both. Only the tail of xmlCharEncodingHandler depends on it, and
// SafeHTML never touches that struct.
#undef LIBXML_ICU_ENABLED

#include <libxml/HTMLparser.h>
#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

// Swift cannot define libxml2's variadic error callback, so the silent handlers live here.
static inline void safehtml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

#if LIBXML_VERSION >= 21200
static inline void safehtml_ignore_structured_error(void *context, const xmlError *error) {
#else
static inline void safehtml_ignore_structured_error(void *context, xmlErrorPtr error) {
#endif
    (void)context;
    (void)error;
}

/// Stops libxml2 printing parse errors from the calling thread (its error handlers are per thread).
static inline void safehtml_silence_errors_on_this_thread(void) {
    xmlSetGenericErrorFunc(NULL, safehtml_ignore_generic_error);
    xmlSetStructuredErrorFunc(NULL, safehtml_ignore_structured_error);
}

/// Stops libxml2 printing parse errors from threads whose libxml2 state is created later.
static inline void safehtml_silence_errors_on_new_threads(void) {
    xmlThrDefSetGenericErrorFunc(NULL, safehtml_ignore_generic_error);
    xmlThrDefSetStructuredErrorFunc(NULL, safehtml_ignore_structured_error);
}

#endif
