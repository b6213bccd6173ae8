// libzstd, loaded when the first .zst is read or written rather than when strata starts:
// most commands (a listing, a walk, an image copy to a plain file) never compress, and a
// library linked in is opened, mapped and relocated by every one of them, ~0.1 ms of a
// command that lasts a few. These are the zstd functions zstd_stream.cpp calls, forwarding
// to the library opened on first use (as backends/http/curl_loader.cpp does for libcurl).
#include "core/transfer/zstd_stream.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <dlfcn.h>

#include <mutex>

namespace {

struct Zstd {
    void *library = nullptr;
    std::string error; // why it could not be loaded
    unsigned (*isError)(size_t) = nullptr;
    const char *(*getErrorName)(size_t) = nullptr;
    ZSTD_ErrorCode (*getErrorCode)(size_t) = nullptr;
    int (*minCLevel)() = nullptr;
    int (*maxCLevel)() = nullptr;
    size_t (*compressBound)(size_t) = nullptr;
    ZSTD_bounds (*cParamGetBounds)(ZSTD_cParameter) = nullptr;
    ZSTD_CCtx *(*createCCtx)() = nullptr;
    size_t (*freeCCtx)(ZSTD_CCtx *) = nullptr;
    size_t (*cctxSetParameter)(ZSTD_CCtx *, ZSTD_cParameter, int) = nullptr;
    size_t (*compress2)(ZSTD_CCtx *, void *, size_t, const void *, size_t) = nullptr;
    size_t (*compressStream2)(ZSTD_CCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *, ZSTD_EndDirective) = nullptr;
    ZSTD_DCtx *(*createDCtx)() = nullptr;
    size_t (*freeDCtx)(ZSTD_DCtx *) = nullptr;
    size_t (*decompressStream)(ZSTD_DCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *) = nullptr;
};

template <typename F>
bool bind(void *library, F &target, const char *name)
{
    target = reinterpret_cast<F>(::dlsym(library, name));
    return target != nullptr;
}

const Zstd &zstd()
{
    static Zstd z;
    static std::once_flag once;
    std::call_once(once, [] {
        void *library = ::dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *why = ::dlerror();
            z.error = std::string("cannot load libzstd.so.1 (install libzstd1)") + (why ? ": " + std::string(why) : "");
            return;
        }
        Zstd loaded;
        loaded.library = library;
        const bool ok = bind(library, loaded.isError, "ZSTD_isError") && bind(library, loaded.getErrorName, "ZSTD_getErrorName")
            && bind(library, loaded.getErrorCode, "ZSTD_getErrorCode") && bind(library, loaded.minCLevel, "ZSTD_minCLevel")
            && bind(library, loaded.maxCLevel, "ZSTD_maxCLevel") && bind(library, loaded.compressBound, "ZSTD_compressBound")
            && bind(library, loaded.cParamGetBounds, "ZSTD_cParam_getBounds")
            && bind(library, loaded.createCCtx, "ZSTD_createCCtx") && bind(library, loaded.freeCCtx, "ZSTD_freeCCtx")
            && bind(library, loaded.cctxSetParameter, "ZSTD_CCtx_setParameter")
            && bind(library, loaded.compress2, "ZSTD_compress2") && bind(library, loaded.compressStream2, "ZSTD_compressStream2")
            && bind(library, loaded.createDCtx, "ZSTD_createDCtx") && bind(library, loaded.freeDCtx, "ZSTD_freeDCtx")
            && bind(library, loaded.decompressStream, "ZSTD_decompressStream");
        if (ok)
            z = loaded;
        else
            z.error = "libzstd.so.1 lacks functions strata needs (it is older than zstd 1.4)";
        // Without the library, contexts cannot be made: every stream fails with z.error
        // (zstdUnavailable), and nothing else is reached.
    });
    return z;
}

} // namespace

namespace strata {

std::optional<std::string> zstdUnavailable()
{
    const Zstd &z = zstd();
    return z.library ? std::nullopt : std::optional<std::string>(z.error);
}

} // namespace strata

extern "C" {

// Only reached with a context made, hence with the library loaded; the level bounds are
// zstd's own when it is missing (the error then comes from the context).
unsigned ZSTD_isError(size_t code)
{
    return zstd().isError ? zstd().isError(code) : 1;
}
const char *ZSTD_getErrorName(size_t code)
{
    return zstd().getErrorName ? zstd().getErrorName(code) : "libzstd is not loaded";
}
ZSTD_ErrorCode ZSTD_getErrorCode(size_t code)
{
    return zstd().getErrorCode ? zstd().getErrorCode(code) : ZSTD_error_GENERIC;
}
int ZSTD_minCLevel()
{
    return zstd().minCLevel ? zstd().minCLevel() : -(1 << 17);
}
int ZSTD_maxCLevel()
{
    return zstd().maxCLevel ? zstd().maxCLevel() : 22;
}
size_t ZSTD_compressBound(size_t size)
{
    return zstd().compressBound ? zstd().compressBound(size) : ZSTD_COMPRESSBOUND(size);
}
ZSTD_bounds ZSTD_cParam_getBounds(ZSTD_cParameter parameter)
{
    if (zstd().cParamGetBounds)
        return zstd().cParamGetBounds(parameter);
    ZSTD_bounds none{};
    none.error = size_t(-ZSTD_error_GENERIC);
    return none;
}
ZSTD_CCtx *ZSTD_createCCtx()
{
    return zstd().createCCtx ? zstd().createCCtx() : nullptr;
}
size_t ZSTD_freeCCtx(ZSTD_CCtx *cctx)
{
    return zstd().freeCCtx ? zstd().freeCCtx(cctx) : 0;
}
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx *cctx, ZSTD_cParameter parameter, int value)
{
    return zstd().cctxSetParameter(cctx, parameter, value);
}
size_t ZSTD_compress2(ZSTD_CCtx *cctx, void *dst, size_t dstCapacity, const void *src, size_t srcSize)
{
    return zstd().compress2(cctx, dst, dstCapacity, src, srcSize);
}
size_t ZSTD_compressStream2(ZSTD_CCtx *cctx, ZSTD_outBuffer *output, ZSTD_inBuffer *input, ZSTD_EndDirective end)
{
    return zstd().compressStream2(cctx, output, input, end);
}
ZSTD_DCtx *ZSTD_createDCtx()
{
    return zstd().createDCtx ? zstd().createDCtx() : nullptr;
}
size_t ZSTD_freeDCtx(ZSTD_DCtx *dctx)
{
    return zstd().freeDCtx ? zstd().freeDCtx(dctx) : 0;
}
size_t ZSTD_decompressStream(ZSTD_DCtx *dctx, ZSTD_outBuffer *output, ZSTD_inBuffer *input)
{
    return zstd().decompressStream(dctx, output, input);
}

} // extern "C"
