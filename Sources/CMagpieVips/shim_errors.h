// Error text handling shared by the shim's files (not part of the Swift-facing API).
#ifndef MAGPIE_SHIM_ERRORS_H
#define MAGPIE_SHIM_ERRORS_H

#include <stddef.h>

/// Copies libvips' error buffer (or `fallback` when empty) into `error` and clears it.
void magpie_take_error(char *error, size_t error_length, const char *fallback);

/// Copies `text` into `error`.
void magpie_set_error(char *error, size_t error_length, const char *text);

#endif
