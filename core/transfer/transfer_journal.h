#pragma once

#include "core/transfer/transfer_spec.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata {

// A job's memory on disk, so it survives a crash or a restart: one file, the spec on its
// first line ("J {json}", written once), then an append-only log of finished files and
// finished parts of large files, each line flushed to the kernel as it happens (a killed
// process loses nothing it logged). One file, not two: a copy of a few milliseconds pays
// for every directory change on a cold cache. A finished or cancelled job removes it.
class TransferJournal {
public:
    struct PartRecord {
        std::string hash; // hex checksum of the part's bytes ("" when not computed)
    };

    // Starts a journal for a new job in `dir` (created if needed).
    static Result<std::unique_ptr<TransferJournal>> create(const std::string &dir, const std::string &jobId,
                                                           const TransferSpec &spec);
    // Reads a journal back (spec and log).
    static Result<std::unique_ptr<TransferJournal>> load(const std::string &path);
    // The spec files of every journal in dir.
    static std::vector<std::string> list(const std::string &dir);

    ~TransferJournal();

    const std::string &jobId() const { return m_jobId; }
    const TransferSpec &spec() const { return m_spec; }

    bool fileDone(const std::string &dstPath) const;
    void markFileDone(const std::string &dstPath);
    // About to publish dstPath: a run killed between this and markFileDone may or may not
    // have published it, so the next run accepts a complete copy found there.
    void markCommitting(const std::string &dstPath);
    bool committing(const std::string &dstPath) const;
    // How the first run read the destination: a directory to copy into, or the new name
    // (the first run may have created it, and the next must not then copy into it).
    void recordDestinationIsDir(bool into);
    // Server-side state a writer of dstPath left (see WriteOptions::onPending), to discard
    // when the file is copied again or the job is cancelled.
    void recordPending(const std::string &dstPath, const std::string &token);
    std::vector<std::string> pending(const std::string &dstPath) const;
    // Every (path, token) recorded for a file not finished.
    std::vector<std::pair<std::string, std::string>> pendingUnfinished() const;
    std::optional<bool> destinationIsDir() const;
    // Starts (or restarts) the part log of a file of this size and mtime; parts recorded
    // for another version of the source are forgotten.
    // `partSize`: what the file was cut into (the spec's, or smaller for a distant storage).
    void beginFile(const std::string &dstPath, std::uint64_t size, std::int64_t mtimeNs, std::uint64_t partSize);
    // The part size an earlier run cut this version of the file to, if it began it: a
    // resumed run cuts it the same way, whatever the link says now.
    std::optional<std::uint64_t> partSize(const std::string &dstPath, std::uint64_t size, std::int64_t mtimeNs) const;
    // Parts of the same version, cut the same way, already written, by part index.
    std::map<std::size_t, PartRecord> partsDone(const std::string &dstPath, std::uint64_t size, std::int64_t mtimeNs,
                                                std::uint64_t partSize) const;
    void markPartDone(const std::string &dstPath, std::size_t part, const std::string &hash);
    // Destinations started (they may have partial files) and not finished.
    std::vector<std::string> filesBegun() const;

    // Deletes the journal's files (the job is over).
    void remove();

private:
    TransferJournal() = default;
    void append(const std::string &line);
    void replay(std::FILE *log);

    struct FileState {
        std::uint64_t size = 0;
        std::int64_t mtimeNs = 0;
        std::uint64_t partSize = 0; // 0: a journal from before part sizes were logged (the spec's)
        std::map<std::size_t, PartRecord> parts;
    };

    std::string m_jobId;
    std::string m_path;
    TransferSpec m_spec;
    mutable std::mutex m_mutex;
    int m_fd = -1; // O_APPEND
    std::set<std::string, std::less<>> m_done;
    std::set<std::string, std::less<>> m_committing;
    std::optional<bool> m_destinationIsDir;
    std::map<std::string, std::vector<std::string>, std::less<>> m_pending;
    std::map<std::string, FileState, std::less<>> m_files;
};

// Where journals live: $STRATA_STATE_DIR, else $XDG_STATE_HOME/strata/transfers, else
// ~/.local/state/strata/transfers.
std::string defaultJournalDir();

} // namespace strata
