#ifndef CAREPORTAL_CCMARK_SHIM_H
#define CAREPORTAL_CCMARK_SHIM_H

#include <cmark.h>

#endif
