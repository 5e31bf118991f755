#ifndef CAREPORTAL_CQRENCODE_SHIM_H
#define CAREPORTAL_CQRENCODE_SHIM_H

// libqrencode (Debian libqrencode-dev): draws the QR code an authenticator app scans.
#include <qrencode.h>

#endif
