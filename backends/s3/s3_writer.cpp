#include "backends/s3/s3_writer.h"

#include "backends/s3/s3_backend.h"
#include "backends/s3/s3_xml.h"

namespace strata::s3 {

namespace {

constexpr std::size_t kMinPart = 8u << 20;
constexpr std::size_t kSinglePutLimit = S3Writer::SinglePutLimit;
constexpr std::uint64_t kMaxParts = 10000;

// Parts of at least 8 MiB, larger when the object would need more than 10 000 of them.
std::size_t partSizeFor(const std::optional<std::uint64_t> &size)
{
    if (!size || *size <= kMinPart * kMaxParts)
        return kMinPart;
    const std::uint64_t per = (*size + kMaxParts - 1) / kMaxParts;
    return std::size_t((per + (1u << 20) - 1) & ~std::uint64_t((1u << 20) - 1));
}

} // namespace

S3Writer::S3Writer(std::shared_ptr<S3Backend> backend, std::string key, WriteOptions options)
    : m_backend(std::move(backend)), m_key(std::move(key)), m_options(std::move(options)),
      m_partSize(partSizeFor(m_options.sizeHint))
{
    if (m_options.sizeHint && *m_options.sizeHint <= kSinglePutLimit)
        m_buffer.reserve(std::size_t(*m_options.sizeHint));
}

S3Writer::~S3Writer()
{
    abort();
}

Status S3Writer::failed() const
{
    if (m_finished)
        return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
    return {};
}

Status S3Writer::startUpload()
{
    Call call;
    call.method = "POST";
    call.key = m_key;
    call.query = {{"uploads", ""}};
    auto response = m_backend->sendRetried(call);
    if (!response)
        return std::move(response).error();
    auto id = parseUploadId(response->body);
    if (!id)
        return std::move(id).error();
    m_uploadId = std::move(*id);
    if (m_options.onPending)
        m_options.onPending(m_uploadId);
    return {};
}

Status S3Writer::sendPart(std::vector<std::byte> data)
{
    std::size_t number = 0;
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [this] { return m_inFlight < kMaxParallelParts || m_error; });
        if (m_error)
            return *m_error;
        ++m_inFlight;
        m_etags.emplace_back();
        number = m_etags.size();
    }
    if (!m_pool)
        m_pool = std::make_unique<WorkerPool>(kMaxParallelParts);
    m_pool->submit(m_parts, [this, number, data = std::move(data)]() mutable {
        Call call;
        call.method = "PUT";
        call.key = m_key;
        call.query = {{"partNumber", std::to_string(number)}, {"uploadId", m_uploadId}};
        call.body = data;
        auto response = m_backend->sendRetried(call);
        std::lock_guard lock(m_mutex);
        if (!response)
            m_error = std::move(response).error();
        else if (std::string etag(response->header("etag")); etag.empty())
            m_error = Error(ErrorKind::Corrupt, "the server did not return an ETag for part " + std::to_string(number));
        else
            m_etags[number - 1] = std::move(etag);
        if (data.capacity() == m_partSize) {
            data.clear();
            m_spare.push_back(std::move(data));
        }
        --m_inFlight;
        m_cv.notify_all();
    });
    return {};
}

Status S3Writer::waitForParts()
{
    m_parts.wait();
    std::lock_guard lock(m_mutex);
    if (m_error)
        return *m_error;
    return {};
}

Status S3Writer::write(std::span<const std::byte> data)
{
    if (auto st = failed(); !st)
        return st;
    m_sent += data.size();
    // An object announced larger than one PUT takes starts its multipart upload with its
    // first bytes, and each part goes as soon as it is full: no 16 MiB held back first
    // (a 64 MiB upload waited 0.2 s on loopback before its first request).
    const bool large = m_options.sizeHint && *m_options.sizeHint > kSinglePutLimit;
    if (m_uploadId.empty()) {
        if (!large && m_buffer.size() + data.size() <= std::max(kSinglePutLimit, m_partSize)) {
            m_buffer.insert(m_buffer.end(), data.begin(), data.end());
            return {};
        }
        if (auto st = startUpload(); !st)
            return st;
    }
    // Filled part by part: a full buffer is handed over as it is, no copy.
    while (!data.empty()) {
        if (m_buffer.capacity() < m_partSize) {
            std::lock_guard lock(m_mutex);
            if (!m_spare.empty() && m_buffer.empty()) { // a sent part's memory, already mapped
                m_buffer.swap(m_spare.back());
                m_spare.pop_back();
            }
        }
        if (m_buffer.capacity() < m_partSize)
            m_buffer.reserve(m_partSize);
        const std::size_t n = std::min(data.size(), m_partSize - std::min(m_partSize, m_buffer.size()));
        m_buffer.insert(m_buffer.end(), data.begin(), data.begin() + std::ptrdiff_t(n));
        data = data.subspan(n);
        while (m_buffer.size() >= m_partSize) {
            std::vector<std::byte> part;
            if (m_buffer.size() == m_partSize) {
                part.swap(m_buffer);
            } else { // more than a part kept before the upload started
                part.assign(m_buffer.begin(), m_buffer.begin() + std::ptrdiff_t(m_partSize));
                m_buffer.erase(m_buffer.begin(), m_buffer.begin() + std::ptrdiff_t(m_partSize));
            }
            if (auto st = sendPart(std::move(part)); !st)
                return st;
        }
    }
    return {};
}

Status S3Writer::nameFree()
{
    auto there = m_backend->head(m_key);
    if (!there)
        return std::move(there).error();
    if (there->status >= 200 && there->status < 300)
        return Error(ErrorKind::AlreadyExists, "cannot publish: something has that name");
    if (there->status != 404)
        return s3Error(*there, m_backend->config().bucket);
    return {};
}

Status S3Writer::commit()
{
    if (auto st = failed(); !st)
        return st;
    // Not to replace anything: the name is looked at just before the object appears (S3 has
    // no rename to refuse it then). A multipart upload's look goes beside its last parts.
    const bool look = !m_options.overwrite && (m_options.fresh || !m_uploadId.empty());
    if (m_uploadId.empty()) {
        if (look)
            if (auto st = nameFree(); !st) {
                m_finished = true;
                m_buffer = {};
                return st;
            }
        Call call;
        call.method = "PUT";
        call.key = m_key;
        call.body = m_buffer;
        auto response = m_backend->sendRetried(call);
        m_finished = true;
        m_buffer = {};
        if (!response)
            return std::move(response).error();
        m_committed = m_sent;
        return {};
    }
    // The look goes on the parts' pool (no thread of its own), beside the last parts.
    Status free;
    TaskGroup looked;
    if (look) {
        if (!m_pool)
            m_pool = std::make_unique<WorkerPool>(kMaxParallelParts);
        m_pool->submit(looked, [this, &free] { free = nameFree(); });
    }
    Status sent = m_buffer.empty() ? Status() : sendPart(std::move(m_buffer));
    if (sent)
        sent = waitForParts();
    looked.wait();
    if (sent && !free)
        sent = std::move(free);
    if (!sent) {
        abort();
        return sent;
    }
    const std::string xml = completeMultipartXml(m_etags);
    Call call;
    call.method = "POST";
    call.key = m_key;
    call.query = {{"uploadId", m_uploadId}};
    call.headers = {{"content-type", "application/xml"}};
    call.body = std::as_bytes(std::span(xml.data(), xml.size()));
    auto response = m_backend->sendOk(call);
    if (!response) {
        abort();
        return std::move(response).error();
    }
    // CompleteMultipartUpload may answer 200 and still fail: the error is in the body.
    if (errorCodeIn(response->body)) {
        http::Response failedAnswer = *response;
        failedAnswer.status = 500;
        auto error = s3Error(failedAnswer, m_backend->config().bucket);
        abort();
        return error;
    }
    m_finished = true;
    m_uploadId.clear();
    m_spare = {};
    m_committed = m_sent;
    return {};
}

void S3Writer::abort()
{
    if (m_finished)
        return;
    m_finished = true;
    (void)waitForParts();
    m_buffer = {};
    m_spare = {};
    if (!m_uploadId.empty()) {
        Call call;
        call.method = "DELETE";
        call.key = m_key;
        call.query = {{"uploadId", m_uploadId}};
        (void)m_backend->send(call); // best effort: servers without it expire the upload
        m_uploadId.clear();
    }
}

} // namespace strata::s3
