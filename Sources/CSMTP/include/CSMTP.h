#ifndef CSMTP_H
#define CSMTP_H

#include <stddef.h>

/// Sends one message with libcurl's SMTP client.
///
/// `url` is an smtp:// or smtps:// URL (host and port); `username` and `password` may be NULL.
/// `recipients` holds `recipientCount` addresses. `message` is the whole RFC 5322 message.
/// `requireTLS` asks for STARTTLS on smtp:// URLs (it is implied by smtps://).
/// Returns 0 on success, otherwise libcurl's error code; `errorBuffer` (at least 256 bytes)
/// then describes the failure and `responseCode` holds the server's last SMTP reply code.
int csmtp_send(const char *url,
               const char *username,
               const char *password,
               int requireTLS,
               const char *from,
               const char *const *recipients,
               size_t recipientCount,
               const char *message,
               size_t messageLength,
               long timeoutSeconds,
               long *responseCode,
               char *errorBuffer,
               size_t errorBufferLength);

#endif
