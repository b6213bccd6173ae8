#pragma once

#include <cstddef>

namespace strata::http {

// Initialises libcurl (curl_global_init_mem) with an allocator that keeps libcurl 7.x's two
// per-transfer buffers — the receive buffer (CURLOPT_BUFFERSIZE + 1 bytes) and the upload
// buffer (CURLOPT_UPLOAD_BUFFERSIZE bytes) — for the next transfer instead of freeing them.
// curl 8 keeps them in its multi handle; 7.88 mallocs and frees ~80 KiB per request.
// Every other allocation libcurl makes goes to malloc as usual. Call once, before any other
// curl function; returns curl_global_init's result.
struct CurlBufferSizes {
    std::size_t receive = 0; // CURLOPT_BUFFERSIZE
    std::size_t upload = 0;  // CURLOPT_UPLOAD_BUFFERSIZE
};
// `small`: the sizes of ordinary requests; `large`: those of requests with large bodies.
int initCurlRecyclingBuffers(const CurlBufferSizes &small, const CurlBufferSizes &large);

} // namespace strata::http
