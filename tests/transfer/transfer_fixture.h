#pragma once

#include "core/storage/registry.h"
#include "core/transfer/transfer_progress.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::test {

// A fresh, random directory on one backend for one test, removed afterwards. Its parent
// is made for the test too, so "nothing was written beside the root" can be checked.
// `backend` is memory, file, or any other scheme when `baseUri` names where runs may write
// (an S3 bucket, a WebDAV collection…): the suite needs only a Registry and two root URIs.
class TestRoot {
public:
    TestRoot(Registry &registry, std::string backend, std::string baseUri);
    ~TestRoot();
    TestRoot(const TestRoot &) = delete;
    TestRoot &operator=(const TestRoot &) = delete;

    bool ok() const { return m_op != nullptr; }
    const std::string &problem() const { return m_problem; }
    const std::string &backend() const { return m_backend; }
    Operator &op() const { return *m_op; }
    Capabilities caps() const { return m_op->capabilities(); }
    // The backend path and the URI of `relative` below the root ("" is the root itself).
    std::string path(std::string_view relative = {}) const;
    std::string uri(std::string_view relative = {}) const;
    // The directory the root sits in; it holds the root and nothing else.
    std::string parentPath() const;
    // For file runs: the local path of `relative`.
    std::optional<std::string> localPath(std::string_view relative = {}) const;

private:
    std::string m_backend;
    std::string m_rootPath;
    std::string m_localDir;
    std::shared_ptr<Operator> m_op;
    std::string m_problem;
};

// Which backends this run of the suite copies between: STRATA_TRANSFER_SRC and
// STRATA_TRANSFER_DST (memory, file, …), with STRATA_TRANSFER_SRC_URI / _DST_URI (or
// STRATA_TEST_URI) naming where a remote backend's runs may write; s3 finds the s3rver
// fixture through STRATA_S3_ENVFILE.
struct BackendPair {
    std::string src, srcBase, dst, dstBase;
    static BackendPair fromEnvironment();
};

// Pseudo-random bytes, the same for the same seed (splitmix64): fast enough for 100 MiB.
void fillPattern(std::span<std::byte> out, std::uint64_t seed, std::uint64_t offset = 0);
std::vector<std::byte> pattern(std::size_t size, std::uint64_t seed);
// Text that compresses well.
std::vector<std::byte> compressibleText(std::size_t size);
std::span<const std::byte> asBytes(std::string_view text);

// Creates a directory and its parents where the backend has directories of its own.
Status makeDirs(Operator &op, std::string_view path);
// Writes a whole small object, replacing what is there.
Status putBytes(Operator &op, std::string_view path, std::span<const std::byte> bytes);
// Streams `size` pattern bytes into a new object (1 MiB at a time).
Status putPattern(Operator &op, std::string_view path, std::uint64_t size, std::uint64_t seed);
// A fingerprint of an object's bytes (and length), read 4 MiB at a time; "error: …" when it cannot be read.
std::string digest(Operator &op, std::string_view path);
// Every object below dir by relative path: "dir" for directories, "SIZE DIGEST" for files.
std::map<std::string, std::string> snapshot(Operator &op, std::string_view dir);
// The names in a directory (all of them, hidden ones too); empty when it cannot be listed.
std::vector<std::string> names(Operator &op, std::string_view dir);
bool exists(Operator &op, std::string_view path);
// Whether a writer on this backend keeps what it wrote across a suspend (file temp parts).
bool keepsPartialState(Operator &op, std::string_view dir);

// Records what a queue tells its observer, per job, for the tests to inspect.
class RecordingObserver final : public TransferObserver {
public:
    struct Tick {
        std::chrono::steady_clock::time_point at;
        TransferProgress progress;
    };

    void progress(const std::string &jobId, const TransferProgress &progress) override;
    void stateChanged(const std::string &jobId, JobState state) override;
    void fileFailed(const std::string &jobId, const FileFailure &failure) override;
    void finished(const std::string &jobId, const TransferReport &report) override;

    std::vector<Tick> ticks(const std::string &jobId) const;
    std::vector<JobState> states(const std::string &jobId) const;
    std::vector<FileFailure> failures(const std::string &jobId) const;
    int finishedCount(const std::string &jobId) const;

private:
    mutable std::mutex m_mutex;
    std::map<std::string, std::vector<Tick>> m_ticks;
    std::map<std::string, std::vector<JobState>> m_states;
    std::map<std::string, std::vector<FileFailure>> m_failures;
    std::map<std::string, int> m_finished;
};

} // namespace strata::test
