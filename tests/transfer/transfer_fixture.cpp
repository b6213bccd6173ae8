#include "tests/transfer/transfer_fixture.h"

#include "core/storage/path.h"
#include "tests/behavior/behavior_root.h"

#include <QDir>
#include <QTemporaryDir>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <span>

namespace strata::test {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::string randomName()
{
    std::random_device rd;
    return "strata-transfer-" + std::to_string(rd()) + std::to_string(rd() % 10000);
}

// Appends a path segment to a base URI, before any query.
std::string appendSegment(std::string base, const std::string &segment)
{
    const auto q = base.find('?');
    std::string query = q == std::string::npos ? std::string() : base.substr(q);
    base = base.substr(0, q);
    if (base.empty() || base.back() != '/')
        base += '/';
    return base + segment + query;
}

} // namespace

BackendPair BackendPair::fromEnvironment()
{
    BackendPair pair;
    pair.src = env("STRATA_TRANSFER_SRC");
    pair.dst = env("STRATA_TRANSFER_DST");
    if (pair.src.empty())
        pair.src = "memory";
    if (pair.dst.empty())
        pair.dst = "file";
    auto base = [](const std::string &backend, const char *variable) {
        std::string uri = env(variable);
        if (uri.empty())
            uri = env("STRATA_TEST_URI");
        if (uri.empty())
            uri = fixtureServerUri(backend);
        return uri;
    };
    pair.srcBase = base(pair.src, "STRATA_TRANSFER_SRC_URI");
    pair.dstBase = base(pair.dst, "STRATA_TRANSFER_DST_URI");
    return pair;
}

TestRoot::TestRoot(Registry &registry, std::string backend, std::string baseUri) : m_backend(std::move(backend))
{
    std::string parentUri;
    if (m_backend == "memory") {
        parentUri = "memory://" + randomName() + "/";
    } else if (m_backend == "file") {
        QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/strata-transfer-XXXXXX"));
        dir.setAutoRemove(false);
        m_localDir = dir.path().toStdString();
        parentUri = "file://" + m_localDir;
    } else if (baseUri.empty()) {
        m_problem = "STRATA_TRANSFER_SRC_URI / _DST_URI must name where the " + m_backend + " run may write";
        return;
    } else {
        parentUri = appendSegment(baseUri, randomName());
    }
    auto parent = registry.open(parentUri);
    if (!parent) {
        m_problem = parent.error().message();
        return;
    }
    m_rootPath = joinPath(parent->path, "root");
    if (parent->op->capabilities().has(Capability::CreateDir)) {
        if (auto st = parent->op->createDir(m_rootPath, true); !st) {
            m_problem = st.error().message();
            return;
        }
    }
    m_op = parent->op;
}

TestRoot::~TestRoot()
{
    if (m_op)
        (void)m_op->removeAll(parentPath());
    if (!m_localDir.empty())
        QDir(QString::fromStdString(m_localDir)).removeRecursively();
}

std::string TestRoot::path(std::string_view relative) const
{
    if (relative.empty())
        return m_rootPath;
    return m_rootPath + "/" + std::string(relative);
}

std::string TestRoot::uri(std::string_view relative) const
{
    std::string out = m_op->uriFor(path(relative)).toString();
    // A trailing slash means "into this directory": keep it, at the end of the path (before
    // any ?options: after them it would become part of the last option's value, as it did
    // with ?region=us-east-1/, which only a server that checks signatures refused).
    const std::size_t query = out.find('?');
    const std::size_t end = query == std::string::npos ? out.size() : query;
    if (relative.ends_with('/') && (end == 0 || out[end - 1] != '/'))
        out.insert(end, 1, '/');
    return out;
}

std::string TestRoot::parentPath() const
{
    return std::string(strata::parentPath(m_rootPath));
}

std::optional<std::string> TestRoot::localPath(std::string_view relative) const
{
    if (m_localDir.empty())
        return std::nullopt;
    return path(relative); // file:// paths are local paths
}

void fillPattern(std::span<std::byte> out, std::uint64_t seed, std::uint64_t offset)
{
    // Each 8-byte word depends only on its index: any slice of an object can be made alone.
    std::uint64_t index = offset / 8;
    std::size_t skip = std::size_t(offset % 8), done = 0;
    while (done < out.size()) {
        std::uint64_t z = (seed + index++) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        const std::size_t take = std::min(out.size() - done, 8 - skip);
        std::memcpy(out.data() + done, reinterpret_cast<const std::byte *>(&z) + skip, take);
        done += take;
        skip = 0;
    }
}

std::vector<std::byte> pattern(std::size_t size, std::uint64_t seed)
{
    std::vector<std::byte> out(size);
    fillPattern(out, seed);
    return out;
}

std::vector<std::byte> compressibleText(std::size_t size)
{
    std::string text;
    text.reserve(size + 64);
    for (int line = 0; text.size() < size; ++line)
        text += "line " + std::to_string(line) + ": the quick brown fox jumps over the lazy dog\n";
    text.resize(size);
    auto bytes = asBytes(text);
    return {bytes.begin(), bytes.end()};
}

std::span<const std::byte> asBytes(std::string_view text)
{
    return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

Status makeDirs(Operator &op, std::string_view path)
{
    if (!op.capabilities().has(Capability::CreateDir))
        return {};
    return op.createDir(path, true);
}

Status putBytes(Operator &op, std::string_view path, std::span<const std::byte> bytes)
{
    return op.writeAll(path, bytes);
}

Status putPattern(Operator &op, std::string_view path, std::uint64_t size, std::uint64_t seed)
{
    WriteOptions options;
    options.sizeHint = size;
    auto writer = op.write(path, options);
    if (!writer)
        return std::move(writer).error();
    std::vector<std::byte> buffer(1u << 20);
    for (std::uint64_t pos = 0; pos < size;) {
        auto chunk = std::span(buffer).first(std::size_t(std::min<std::uint64_t>(buffer.size(), size - pos)));
        fillPattern(chunk, seed, pos);
        if (auto st = (*writer)->write(chunk); !st)
            return st;
        pos += chunk.size();
    }
    return (*writer)->commit();
}

std::string digest(Operator &op, std::string_view path)
{
    // Two 64-bit lanes over 8-byte words: ample to tell copies apart, and many times
    // faster than a cryptographic hash over hundreds of MiB.
    std::uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull, total = 0;
    // Not zeroed first: under ThreadSanitizer, zeroing 4 MiB for each of a tree's files
    // (instrumented byte by byte at -O1) took recursiveTree past its 300 s.
    constexpr std::size_t kBuffer = 4u << 20;
    const auto storage = std::make_unique_for_overwrite<std::byte[]>(kBuffer);
    const std::span<std::byte> buffer(storage.get(), kBuffer);
    for (;;) {
        auto n = op.read(path, total, buffer);
        if (!n)
            return "error: " + n.error().message();
        if (*n == 0)
            break;
        std::size_t i = 0;
        for (; i + 8 <= *n; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, buffer.data() + i, 8);
            a = std::rotl(a ^ w, 29) * 0x9e3779b97f4a7c15ull;
            b = (b + w) * 0xc2b2ae3d27d4eb4full;
            b ^= b >> 31;
        }
        for (; i < *n; ++i)
            a = (a ^ std::uint64_t(buffer[i])) * 0x100000001b3ull;
        total += *n;
    }
    char text[64];
    std::snprintf(text, sizeof text, "%016llx%016llx/%llu", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b), static_cast<unsigned long long>(total));
    return text;
}

std::map<std::string, std::string> snapshot(Operator &op, std::string_view dir)
{
    std::map<std::string, std::string> out;
    std::vector<std::pair<std::string, std::string>> todo{{std::string(dir), std::string()}};
    while (!todo.empty()) {
        auto [path, relative] = todo.back();
        todo.pop_back();
        auto entries = op.listAll(path);
        if (!entries) {
            out[relative + "<error>"] = entries.error().message();
            continue;
        }
        for (const auto &e : *entries) {
            const std::string rel = relative.empty() ? e.name : relative + "/" + e.name;
            if (e.isDir()) {
                out[rel] = "dir";
                todo.emplace_back(e.path, rel);
            } else {
                out[rel] = std::to_string(e.size) + " " + digest(op, e.path);
            }
        }
    }
    return out;
}

std::vector<std::string> names(Operator &op, std::string_view dir)
{
    std::vector<std::string> out;
    if (auto entries = op.listAll(dir); entries)
        for (const auto &e : *entries)
            out.push_back(e.name);
    std::sort(out.begin(), out.end());
    return out;
}

bool exists(Operator &op, std::string_view path)
{
    return op.stat(path).ok();
}

bool keepsPartialState(Operator &op, std::string_view dir)
{
    WriteOptions options;
    options.resumeKey = "strata-transfer-probe";
    auto writer = op.write(joinPath(dir, "probe"), options);
    if (!writer)
        return false;
    const bool keeps = (*writer)->keepsPartialState();
    (*writer)->abort();
    return keeps;
}

void RecordingObserver::progress(const std::string &jobId, const TransferProgress &progress)
{
    std::lock_guard lock(m_mutex);
    m_ticks[jobId].push_back({std::chrono::steady_clock::now(), progress});
}

void RecordingObserver::stateChanged(const std::string &jobId, JobState state)
{
    std::lock_guard lock(m_mutex);
    m_states[jobId].push_back(state);
}

void RecordingObserver::fileFailed(const std::string &jobId, const FileFailure &failure)
{
    std::lock_guard lock(m_mutex);
    m_failures[jobId].push_back(failure);
}

void RecordingObserver::finished(const std::string &jobId, const TransferReport &)
{
    std::lock_guard lock(m_mutex);
    ++m_finished[jobId];
}

std::vector<RecordingObserver::Tick> RecordingObserver::ticks(const std::string &jobId) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_ticks.find(jobId);
    return it == m_ticks.end() ? std::vector<Tick>{} : it->second;
}

std::vector<JobState> RecordingObserver::states(const std::string &jobId) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_states.find(jobId);
    return it == m_states.end() ? std::vector<JobState>{} : it->second;
}

std::vector<FileFailure> RecordingObserver::failures(const std::string &jobId) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_failures.find(jobId);
    return it == m_failures.end() ? std::vector<FileFailure>{} : it->second;
}

int RecordingObserver::finishedCount(const std::string &jobId) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_finished.find(jobId);
    return it == m_finished.end() ? 0 : it->second;
}

} // namespace strata::test
