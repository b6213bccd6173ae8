#pragma once

#include "core/storage/backend.h"
#include "core/storage/registry.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

namespace strata::test {

// A scripted, read-only source (fake://store/…) for what real backends refuse to hold:
// listings with names like "..", "a/b" or "" (a hostile or broken server), and files
// whose reads are refused. Everything else behaves like a small plain store.
class FakeBackend final : public Backend {
public:
    void addDir(const std::string &path);
    void addFile(const std::string &path, std::vector<std::byte> bytes);
    // Listed in `dir` exactly as given, whatever its name and path.
    void addRawEntry(const std::string &dir, Entry entry);
    // Reads of this file fail with PermissionDenied, as a server's 403 would.
    void denyRead(const std::string &path);
    void allowRead(const std::string &path);
    // The next `times` reads of this file at or past `from` fail with a temporary network
    // error (-1: all).
    void failReads(const std::string &path, int times, std::uint64_t from = 0);
    // Served as FTP and SFTP are: one stream per object, parts one after another.
    void setOneStream(bool one) { m_oneStream = one; }
    bool oneStreamPerObject(Flow) const override { return m_oneStream; }
    // Served as a distant server is: `streams` ranges of a file wanted at once, each read
    // taking `readTime` (0 streams: as any store). Counts the reads under way together.
    void setStreams(std::size_t streams, std::chrono::milliseconds readTime = std::chrono::milliseconds(3))
    {
        m_streams = streams;
        m_readTime = readTime;
        m_mostReads = 0;
    }
    std::size_t preferredStreams(Flow flow) const override
    {
        return flow == Flow::Reading ? m_streams.load() : m_writeStreams.load();
    }
    std::size_t mostReadsAtOnce() const { return m_mostReads.load(); }
    // Folders made here take `time` each (a server far away); counts those made together.
    void setDirTime(std::chrono::milliseconds time)
    {
        m_dirTime = time;
        m_mostDirs = 0;
    }
    std::size_t mostDirsAtOnce() const { return m_mostDirs.load(); }
    // Takes files (each commit taking `commitTime`) and folder modes, noting the order in
    // which commits and modes happened (step() of each path); written as a distant server
    // is when `streams` > 0 (connections it wants busy).
    void setWritable(std::chrono::milliseconds commitTime, std::size_t streams = 0)
    {
        m_writable = true;
        m_commitTime = commitTime;
        m_writeStreams = streams;
    }
    // When `path` was committed or given its mode, counting from 1; 0: never.
    std::size_t step(const std::string &path) const
    {
        std::lock_guard lock(m_mutex);
        auto it = m_steps.find(path);
        return it == m_steps.end() ? 0 : it->second;
    }
    void noteStep(const std::string &path)
    {
        std::lock_guard lock(m_mutex);
        m_steps[path] = m_steps.size() + 1;
    }
    std::chrono::milliseconds commitTime() const { return m_commitTime.load(); }
    bool hasDir(const std::string &path) const
    {
        std::lock_guard lock(m_mutex);
        return m_dirs.count(path) > 0;
    }

    Capabilities capabilities() const override;
    Uri uriFor(std::string_view path) const override;
    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow) override;

private:
    Entry entryFor(const std::string &path) const;

    mutable std::mutex m_mutex;
    std::set<std::string> m_dirs{"/"};
    std::map<std::string, std::vector<std::byte>> m_files;
    std::map<std::string, std::vector<Entry>> m_raw;
    std::set<std::string> m_denied;
    std::map<std::string, std::pair<int, std::uint64_t>> m_flaky; // times left, from
    std::atomic<bool> m_oneStream{false};
    std::atomic<std::size_t> m_streams{0};
    std::atomic<std::size_t> m_readsNow{0}, m_mostReads{0};
    std::atomic<std::chrono::milliseconds> m_readTime{std::chrono::milliseconds(3)};
    std::atomic<std::chrono::milliseconds> m_dirTime{std::chrono::milliseconds(0)};
    std::atomic<std::size_t> m_dirsNow{0}, m_mostDirs{0};
    std::atomic<bool> m_writable{false};
    std::atomic<std::chrono::milliseconds> m_commitTime{std::chrono::milliseconds(0)};
    std::atomic<std::size_t> m_writeStreams = 0;
    std::map<std::string, std::size_t> m_steps;
};

// Serves one FakeBackend for every fake:// URI.
class FakeFactory final : public BackendFactory {
public:
    explicit FakeFactory(std::shared_ptr<FakeBackend> backend) : m_backend(std::move(backend)) {}
    std::string scheme() const override { return "fake"; }
    std::string example() const override { return "fake://store/path"; }
    Result<Target> locate(const Uri &uri) override { return Target{"fake://store", uri.path()}; }
    Result<std::shared_ptr<Backend>> create(const Uri &, const Target &, const ConnectionSecret &) override
    {
        return std::shared_ptr<Backend>(m_backend);
    }

private:
    std::shared_ptr<FakeBackend> m_backend;
};

} // namespace strata::test
