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

/// POSTs `body` (`bodyLength` bytes) to an https:// URL (http:// only when `allowPlainHTTP` is set, for
/// a gateway on the same machine) with libcurl. `headers` holds `headerCount` "Name: value" lines.
/// Returns 0 when the request completed (whatever its status), otherwise libcurl's error code;
/// `statusCode` holds the HTTP status and `errorBuffer` (at least 256 bytes) describes a failure.
int csmtp_http_post(const char *url,
                    int allowPlainHTTP,
                    const char *const *headers,
                    size_t headerCount,
                    const char *body,
                    size_t bodyLength,
                    long timeoutSeconds,
                    long *statusCode,
                    char *errorBuffer,
                    size_t errorBufferLength);

#endif
