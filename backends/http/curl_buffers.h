#pragma once

#include <cstddef>

namespace strata::http {

// Initialises libcurl (curl_global_init_mem) with an allocator that keeps libcurl 7.x's two
// per-transfer buffers — the receive buffer (CURLOPT_BUFFERSIZE + 1 bytes) and the upload
// buffer (CURLOPT_UPLOAD_BUFFERSIZE bytes) — for the next transfer instead of freeing them.
// curl 8 keeps them in its multi handle; 7.88 mallocs and frees ~80 KiB per request.
// Every other allocation libcurl makes goes to malloc as usual. Call once, before any other
// curl function; returns curl_global_init's result.
int initCurlRecyclingBuffers(std::size_t receiveBufferSize, std::size_t uploadBufferSize);

} // namespace strata::http
