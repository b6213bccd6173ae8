#include "backends/http/upload_pipe.h"

#include <algorithm>
#include <cstring>

namespace strata::http {

Status UploadPipe::handOver(std::span<const std::byte> data)
{
    if (data.empty())
        return {};
    std::unique_lock lock(m_mutex);
    if (m_done)
        return m_outcome ? Status(Error(ErrorKind::Network, "the server ended the upload early")) : m_outcome;
    m_pending = data;
    m_cv.notify_all();
    m_cv.wait(lock, [this] { return m_pending.empty() || m_done; });
    if (!m_pending.empty()) {
        m_pending = {}; // the caller's bytes: never touched once handOver returned
        return m_outcome ? Status(Error(ErrorKind::Network, "the server ended the upload early")) : m_outcome;
    }
    return {};
}

Status UploadPipe::end()
{
    std::unique_lock lock(m_mutex);
    m_end = true;
    m_cv.notify_all();
    return wait(lock);
}

void UploadPipe::cancel()
{
    std::unique_lock lock(m_mutex);
    m_cancel = true;
    m_cv.notify_all();
    (void)wait(lock);
}

Status UploadPipe::wait(std::unique_lock<std::mutex> &lock)
{
    m_cv.wait(lock, [this] { return m_done; });
    return m_outcome;
}

std::optional<std::size_t> UploadPipe::pull(std::span<std::byte> out)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return !m_pending.empty() || m_end || m_cancel; });
    if (m_cancel)
        return std::nullopt;
    const std::size_t n = std::min(out.size(), m_pending.size());
    std::memcpy(out.data(), m_pending.data(), n);
    m_pending = m_pending.subspan(n);
    if (m_pending.empty())
        m_cv.notify_all();
    return n; // 0 only at the end
}

void UploadPipe::finished(Status outcome)
{
    std::lock_guard lock(m_mutex);
    m_outcome = std::move(outcome);
    m_done = true;
    m_cv.notify_all();
}

} // namespace strata::http
