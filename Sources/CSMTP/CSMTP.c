#include "CSMTP.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct upload {
    const char *data;
    size_t remaining;
};

static size_t read_message(char *buffer, size_t size, size_t count, void *userdata) {
    struct upload *upload = userdata;
    size_t room = size * count;
    size_t length = upload->remaining < room ? upload->remaining : room;
    memcpy(buffer, upload->data, length);
    upload->data += length;
    upload->remaining -= length;
    return length;
}

static size_t discard_response(char *buffer, size_t size, size_t count, void *userdata) {
    (void)buffer;
    (void)userdata;
    return size * count;
}

static pthread_once_t global_init = PTHREAD_ONCE_INIT;

static void init_curl(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/// A new handle with what every request here sets: its URL, the error buffer, timeouts and no signals.
/// NULL, with `errorBuffer` saying why, when libcurl cannot start.
static CURL *start_request(const char *url, long timeoutSeconds, char *curlError, long *responseCode,
                           char *errorBuffer, size_t errorBufferLength) {
    pthread_once(&global_init, init_curl);
    if (errorBuffer != NULL && errorBufferLength > 0) {
        errorBuffer[0] = '\0';
    }
    *responseCode = 0;
    curlError[0] = '\0';
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        if (errorBuffer != NULL) snprintf(errorBuffer, errorBufferLength, "could not start libcurl");
        return NULL;
    }
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curlError);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeoutSeconds);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, timeoutSeconds);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    return curl;
}

/// Performs the request, reads the server's last response code, describes a failure, and frees the
/// handle and `list`. Returns libcurl's result.
static int finish_request(CURL *curl, struct curl_slist *list, const char *curlError, long *responseCode,
                          char *errorBuffer, size_t errorBufferLength) {
    CURLcode result = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, responseCode);
    if (result != CURLE_OK && errorBuffer != NULL) {
        snprintf(errorBuffer, errorBufferLength, "%s",
                 curlError[0] != '\0' ? curlError : curl_easy_strerror(result));
    }
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return (int)result;
}

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
               size_t errorBufferLength) {
    char curlError[CURL_ERROR_SIZE];
    CURL *curl = start_request(url, timeoutSeconds, curlError, responseCode, errorBuffer, errorBufferLength);
    if (curl == NULL) return CURLE_FAILED_INIT;

    struct curl_slist *recipientList = NULL;
    for (size_t index = 0; index < recipientCount; index++) {
        recipientList = curl_slist_append(recipientList, recipients[index]);
    }
    struct upload upload = { message, messageLength };

    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
    curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, recipientList);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_message);
    curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)messageLength);
    if (requireTLS) {
        curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
    }
    if (username != NULL && username[0] != '\0') {
        curl_easy_setopt(curl, CURLOPT_USERNAME, username);
    }
    if (password != NULL && password[0] != '\0') {
        curl_easy_setopt(curl, CURLOPT_PASSWORD, password);
    }
    return finish_request(curl, recipientList, curlError, responseCode, errorBuffer, errorBufferLength);
}

int csmtp_http_post(const char *url,
                    int allowPlainHTTP,
                    const char *const *headers,
                    size_t headerCount,
                    const char *body,
                    size_t bodyLength,
                    long timeoutSeconds,
                    long *statusCode,
                    char *errorBuffer,
                    size_t errorBufferLength) {
    char curlError[CURL_ERROR_SIZE];
    CURL *curl = start_request(url, timeoutSeconds, curlError, statusCode, errorBuffer, errorBufferLength);
    if (curl == NULL) return CURLE_FAILED_INIT;

    struct curl_slist *headerList = NULL;
    for (size_t index = 0; index < headerCount; index++) {
        headerList = curl_slist_append(headerList, headers[index]);
    }
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, allowPlainHTTP ? "https,http" : "https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)bodyLength);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headerList);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard_response);
    return finish_request(curl, headerList, curlError, statusCode, errorBuffer, errorBufferLength);
}
