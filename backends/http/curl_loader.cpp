// libcurl, loaded when the first HTTP request is made rather than when strata starts:
// linking it would load some forty libraries (TLS, GSSAPI, LDAP, SSH, IDN…) into every
// command, also those that never talk HTTP (a local copy, a walk, an NBD image). These are
// the curl functions the HTTP client calls, forwarding to the library opened on first use.
//
// curl_easy_setopt and curl_easy_getinfo are variadic with exactly one argument after the
// option: a long, a curl_off_t, a pointer or a function pointer. On the 64-bit ABIs we
// build for, each of those is one 8-byte integer-class argument, so it is forwarded as one.
#include <curl/curl.h>

#include <dlfcn.h>

#include <cstdarg>
#include <mutex>

static_assert(sizeof(long) == 8 && sizeof(curl_off_t) == 8 && sizeof(void *) == 8,
              "curl_loader forwards variadic options as one 8-byte argument");

namespace {

struct Curl {
    void *library = nullptr;
    CURLcode (*globalInitMem)(long, curl_malloc_callback, curl_free_callback, curl_realloc_callback,
                              curl_strdup_callback, curl_calloc_callback) = nullptr;
    CURL *(*easyInit)() = nullptr;
    void (*easyCleanup)(CURL *) = nullptr;
    void (*easyReset)(CURL *) = nullptr;
    CURLcode (*easyPerform)(CURL *) = nullptr;
    CURLcode (*easySetopt)(CURL *, CURLoption, ...) = nullptr;
    CURLcode (*easyGetinfo)(CURL *, CURLINFO, ...) = nullptr;
    const char *(*easyStrerror)(CURLcode) = nullptr;
};

template <typename F>
bool bind(void *library, F &target, const char *name)
{
    target = reinterpret_cast<F>(::dlsym(library, name));
    return target != nullptr;
}

const Curl &curl()
{
    static Curl c;
    static std::once_flag once;
    std::call_once(once, [] {
        void *library = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
        if (!library)
            return;
        Curl loaded;
        loaded.library = library;
        const bool ok = bind(library, loaded.globalInitMem, "curl_global_init_mem") && bind(library, loaded.easyInit, "curl_easy_init")
            && bind(library, loaded.easyCleanup, "curl_easy_cleanup") && bind(library, loaded.easyReset, "curl_easy_reset") && bind(library, loaded.easyPerform, "curl_easy_perform") && bind(library, loaded.easySetopt, "curl_easy_setopt")
            && bind(library, loaded.easyGetinfo, "curl_easy_getinfo")
            && bind(library, loaded.easyStrerror, "curl_easy_strerror");
        if (ok)
            c = loaded;
        // A library without one of these is not a libcurl we can use: every call then
        // fails the way a failed curl_easy_init does (the client reports it).
    });
    return c;
}

} // namespace

extern "C" {

CURLcode curl_global_init_mem(long flags, curl_malloc_callback m, curl_free_callback f, curl_realloc_callback r,
                              curl_strdup_callback s, curl_calloc_callback c)
{
    return curl().globalInitMem ? curl().globalInitMem(flags, m, f, r, s, c) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init()
{
    return curl().easyInit ? curl().easyInit() : nullptr;
}

void curl_easy_cleanup(CURL *handle)
{
    if (curl().easyCleanup)
        curl().easyCleanup(handle);
}

void curl_easy_reset(CURL *handle)
{
    if (curl().easyReset)
        curl().easyReset(handle);
}

CURLcode curl_easy_perform(CURL *handle)
{
    return curl().easyPerform ? curl().easyPerform(handle) : CURLE_FAILED_INIT;
}

// curl.h fixes these signatures: the last named parameter is an enum, which C++ promotes
// to int, so clang calls va_start on it undefined. libcurl does the same in C, and every ABI
// we build for passes such an enum as an int: the varargs are where va_start looks.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif
CURLcode curl_easy_setopt(CURL *handle, CURLoption option, ...)
{
    va_list ap;
    va_start(ap, option);
    void *value = va_arg(ap, void *);
    va_end(ap);
    return curl().easySetopt ? curl().easySetopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode curl_easy_getinfo(CURL *handle, CURLINFO info, ...)
{
    va_list ap;
    va_start(ap, info);
    void *out = va_arg(ap, void *);
    va_end(ap);
    return curl().easyGetinfo ? curl().easyGetinfo(handle, info, out) : CURLE_FAILED_INIT;
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

const char *curl_easy_strerror(CURLcode code)
{
    return curl().easyStrerror ? curl().easyStrerror(code) : "libcurl (libcurl.so.4) could not be loaded";
}

} // extern "C"
