// glibc's allocator settings (mallopt), which Swift's Glibc module does not bring in.
#include <malloc.h>
