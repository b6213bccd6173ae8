#include "tests/transfer/fake_backend.h"

#include "core/storage/path.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace strata::test {

void FakeBackend::addDir(const std::string &path)
{
    std::lock_guard lock(m_mutex);
    m_dirs.insert(path);
}

void FakeBackend::addFile(const std::string &path, std::vector<std::byte> bytes)
{
    std::lock_guard lock(m_mutex);
    m_files[path] = std::move(bytes);
}

void FakeBackend::addRawEntry(const std::string &dir, Entry entry)
{
    std::lock_guard lock(m_mutex);
    m_raw[dir].push_back(std::move(entry));
}

void FakeBackend::denyRead(const std::string &path)
{
    std::lock_guard lock(m_mutex);
    m_denied.insert(path);
}

void FakeBackend::allowRead(const std::string &path)
{
    std::lock_guard lock(m_mutex);
    m_denied.erase(path);
}

void FakeBackend::failReads(const std::string &path, int times, std::uint64_t from)
{
    std::lock_guard lock(m_mutex);
    m_flaky[path] = {times, from};
}

Capabilities FakeBackend::capabilities() const
{
    if (m_writable)
        return {Capability::Stat,       Capability::List,      Capability::Read,
                Capability::RangedRead, Capability::CreateDir, Capability::RealDirectories,
                Capability::Write};
    return {
        Capability::Stat,     Capability::List, Capability::Read, Capability::RangedRead, Capability::RealDirectories,
        Capability::CreateDir};
}

Uri FakeBackend::uriFor(std::string_view path) const
{
    Uri uri;
    uri.setScheme("fake");
    uri.setHost("store");
    uri.setPath(std::string(path.empty() ? "/" : path));
    return uri;
}

Entry FakeBackend::entryFor(const std::string &path) const
{
    Entry e;
    e.path = path;
    e.name = std::string(baseName(path));
    e.mtimeNs = 1'600'000'000'000'000'000;
    if (auto it = m_files.find(path); it != m_files.end()) {
        e.kind = EntryKind::File;
        e.size = it->second.size();
    } else {
        e.kind = EntryKind::Directory;
    }
    return e;
}

Result<Entry> FakeBackend::stat(std::string_view path)
{
    std::lock_guard lock(m_mutex);
    const std::string p(path);
    if (!m_files.count(p) && !m_dirs.count(p))
        return Error(ErrorKind::NotFound);
    return entryFor(p);
}

Result<ListPage> FakeBackend::list(std::string_view dir, const ListOptions &)
{
    std::lock_guard lock(m_mutex);
    const std::string d(dir);
    if (!m_dirs.count(d))
        return Error(m_files.count(d) ? ErrorKind::NotDirectory : ErrorKind::NotFound);
    ListPage page;
    for (const auto &path : m_dirs)
        if (path != "/" && parentPath(path) == d)
            page.entries.push_back(entryFor(path));
    for (const auto &[path, bytes] : m_files)
        if (parentPath(path) == d)
            page.entries.push_back(entryFor(path));
    if (auto raw = m_raw.find(d); raw != m_raw.end())
        page.entries.insert(page.entries.end(), raw->second.begin(), raw->second.end());
    return page;
}

namespace {

// Waits `time`, counting the calls that wait together in `now` and the most so far in `most`.
void takeTime(std::chrono::milliseconds time, std::atomic<std::size_t> &now, std::atomic<std::size_t> &most)
{
    const std::size_t together = ++now;
    for (auto seen = most.load(); together > seen && !most.compare_exchange_weak(seen, together);) {}
    std::this_thread::sleep_for(time);
    --now;
}

} // namespace

Result<std::size_t> FakeBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    if (m_streams > 0) {
        // A round trip away: the reads of the parts in flight overlap.
        takeTime(m_readTime.load(), m_readsNow, m_mostReads);
    }
    std::lock_guard lock(m_mutex);
    const std::string p(path);
    if (m_denied.count(p))
        return Error(ErrorKind::PermissionDenied, "the server refused to read it (403 Forbidden)");
    if (auto flaky = m_flaky.find(p);
        flaky != m_flaky.end() && flaky->second.first != 0 && offset >= flaky->second.second) {
        if (flaky->second.first > 0)
            --flaky->second.first;
        return Error(ErrorKind::Network, "the connection was reset").setTemporary(true);
    }
    auto it = m_files.find(p);
    if (it == m_files.end())
        return Error(m_dirs.count(p) ? ErrorKind::IsDirectory : ErrorKind::NotFound);
    if (offset >= it->second.size())
        return std::size_t(0);
    const auto n = std::size_t(std::min<std::uint64_t>(buffer.size(), it->second.size() - offset));
    std::memcpy(buffer.data(), it->second.data() + offset, n);
    return n;
}

namespace {

// Keeps what is written; its commit takes the store's commit time, then the file is there.
class FakeWriter final : public Writer {
public:
    FakeWriter(FakeBackend &store, std::string path) : m_store(store), m_path(std::move(path)) {}
    Status write(std::span<const std::byte> data) override
    {
        m_bytes.insert(m_bytes.end(), data.begin(), data.end());
        return {};
    }
    Status commit() override
    {
        std::this_thread::sleep_for(m_store.commitTime());
        m_store.addFile(m_path, std::move(m_bytes));
        m_store.noteStep(m_path);
        return {};
    }
    void abort() override {}

private:
    FakeBackend &m_store;
    std::string m_path;
    std::vector<std::byte> m_bytes;
};

} // namespace

Result<std::unique_ptr<Writer>> FakeBackend::write(std::string_view path, const WriteOptions &)
{
    if (!m_writable)
        return unsupported("writing to the fake store");
    return std::unique_ptr<Writer>(std::make_unique<FakeWriter>(*this, std::string(path)));
}

Status FakeBackend::setPermissions(std::string_view path, std::uint32_t, std::string_view)
{
    if (!m_writable)
        return Backend::setPermissions(path, 0, {});
    noteStep(std::string(path));
    return {};
}

Status FakeBackend::createDir(std::string_view path)
{
    takeTime(m_dirTime.load(), m_dirsNow, m_mostDirs);
    std::lock_guard lock(m_mutex);
    const std::string p(path);
    if (m_dirs.count(p) || m_files.count(p))
        return Error(ErrorKind::AlreadyExists);
    if (!m_dirs.count(std::string(parentPath(p))))
        return Error(ErrorKind::NotFound, "its parent does not exist");
    m_dirs.insert(p);
    return {};
}

Status FakeBackend::remove(std::string_view, std::string_view)
{
    return unsupported("removing from the fake store");
}

} // namespace strata::test
