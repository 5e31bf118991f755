#ifndef CAREPORTAL_CHPDF_SHIM_H
#define CAREPORTAL_CHPDF_SHIM_H

// libharu (Debian libhpdf-dev): the PDF library the patient reports are drawn with.
#include <hpdf.h>

#endif
