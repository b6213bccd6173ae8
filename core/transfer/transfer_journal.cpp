#include "core/transfer/transfer_journal.h"

#include "core/storage/state_folder.h"
#include "core/storage/uri.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata {

namespace {

constexpr std::string_view kSuffix = ".transfer.log";

// Paths may hold spaces or newlines; the log keeps them percent-encoded on one line.
std::string encode(const std::string &path)
{
    return percentEncode(path, "/");
}

std::string homeDir()
{
    if (const char *home = std::getenv("HOME"); home && *home)
        return home;
    const passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir ? pw->pw_dir : "/";
}

} // namespace

std::string defaultJournalDir()
{
    if (const char *dir = std::getenv("STRATA_STATE_DIR"); dir && *dir)
        return std::string(dir) + "/transfers";
    if (const char *state = std::getenv("XDG_STATE_HOME"); state && *state)
        return std::string(state) + "/strata/transfers";
    return homeDir() + "/.local/state/strata/transfers";
}

Result<std::unique_ptr<TransferJournal>> TransferJournal::create(const std::string &dir, const std::string &jobId,
                                                                 const TransferSpec &spec)
{
    if (auto st = checkStateFolder(dir); !st)
        return std::move(st).error();
    std::unique_ptr<TransferJournal> journal(new TransferJournal);
    journal->m_jobId = jobId;
    journal->m_spec = spec;
    journal->m_path = dir + "/" + jobId + std::string(kSuffix);
    json::Object doc = spec.toJson();
    doc["job"] = jobId;
    doc["identity"] = spec.identity();
    const auto text = json::writeExact(doc);
    if (!text)
        return Error(ErrorKind::InvalidInput, "cannot record the transfer for resuming: a name in it is not UTF-8");
    const std::string first = "J " + *text + "\n";
    // The spec goes out in one write, before any other line: a journal either has it
    // whole or, cut by a crash inside that write, has no first line and counts as damaged.
    // No fsync: the journal has to survive the process, not a power cut.
    constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC;
    // Journals name what is copied where: readable by this user only.
    int fd = ::open(journal->m_path.c_str(), kFlags, 0600);
    if (fd < 0 && errno == ENOENT) {
        // The folder is made once, by the first transfer: later ones find it there. It and
        // the state folders above it that we make are private (0700).
        for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
            const std::string part = dir.substr(0, slash);
            if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
                break;
            if (slash == std::string::npos)
                break;
        }
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec))
            return Error(ErrorKind::PermissionDenied, "cannot create the transfer journal folder " + dir);
        fd = ::open(journal->m_path.c_str(), kFlags, 0600);
    }
    if (fd < 0)
        return errorFromErrno(errno, "while creating the transfer journal " + journal->m_path);
    if (::write(fd, first.data(), first.size()) != ssize_t(first.size())) {
        const int err = errno;
        ::close(fd);
        ::unlink(journal->m_path.c_str());
        return errorFromErrno(err ? err : ENOSPC, "while writing the transfer journal " + journal->m_path);
    }
    journal->m_fd = fd;
    return journal;
}

Result<std::unique_ptr<TransferJournal>> TransferJournal::load(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "re");
    if (!f)
        return Error(ErrorKind::NotFound, "cannot read the transfer journal " + path);
    char *line = nullptr;
    std::size_t cap = 0;
    const ssize_t len = ::getline(&line, &cap, f);
    std::optional<json::Value> doc;
    if (len > 2 && line[len - 1] == '\n' && line[0] == 'J' && line[1] == ' ')
        doc = json::parse(std::string_view(line + 2, std::size_t(len - 3)));
    std::free(line);
    if (!doc || !doc->is_object()) {
        std::fclose(f);
        return Error(ErrorKind::Corrupt, "the transfer journal " + path + " is damaged");
    }
    auto spec = TransferSpec::fromJson(*doc);
    if (!spec) {
        std::fclose(f);
        return std::move(spec).error();
    }
    std::unique_ptr<TransferJournal> journal(new TransferJournal);
    journal->m_spec = std::move(*spec);
    journal->m_jobId = json::get<std::string>(*doc, "job", "");
    journal->m_path = path;
    journal->replay(f);
    std::fclose(f);
    journal->m_fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (journal->m_fd < 0)
        return errorFromErrno(errno, "while opening the transfer journal");
    return journal;
}

std::vector<std::string> TransferJournal::list(const std::string &dir)
{
    // Plain readdir: every `strata cp` looks here for a transfer to resume, and a name
    // filter through QDir would compile a regular expression each time.
    std::vector<std::pair<std::filesystem::file_time_type, std::string>> found;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.ends_with(kSuffix) || !it->is_regular_file(ec))
            continue;
        found.emplace_back(it->last_write_time(ec), dir + "/" + name);
    }
    // Newest first.
    std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<std::string> out;
    out.reserve(found.size());
    for (auto &f : found)
        out.push_back(std::move(f.second));
    return out;
}

TransferJournal::~TransferJournal()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void TransferJournal::replay(std::FILE *f)
{
    char *line = nullptr;
    std::size_t cap = 0;
    ssize_t len;
    while ((len = ::getline(&line, &cap, f)) > 0) {
        // A line cut short by a crash has no newline: ignore it.
        if (line[len - 1] != '\n')
            break;
        std::istringstream in(std::string(line, std::size_t(len - 1)));
        std::string tag, encoded;
        in >> tag >> encoded;
        if (tag == "D") {
            m_destinationIsDir = encoded == "into";
            continue;
        }
        auto decoded = percentDecode(encoded);
        if (!decoded)
            continue;
        const std::string &path = *decoded;
        if (tag == "F") {
            m_done.insert(path);
        } else if (tag == "C") {
            m_committing.insert(path);
        } else if (tag == "U") {
            std::string token;
            in >> token;
            if (auto t = percentDecode(token); t && !t->empty())
                m_pending[path].push_back(*t);
        } else if (tag == "S") {
            FileState state;
            in >> state.size >> state.mtimeNs;
            if (!(in >> state.partSize))
                state.partSize = 0;
            m_files[path] = std::move(state);
        } else if (tag == "P") {
            std::size_t part = 0;
            std::string hash;
            in >> part >> hash;
            if (auto it = m_files.find(path); it != m_files.end())
                it->second.parts[part] = PartRecord{hash == "-" ? std::string() : hash};
        }
    }
    std::free(line);
}

void TransferJournal::append(const std::string &line)
{
    if (m_fd < 0)
        return;
    // One write per record, straight into the kernel: it survives the process being killed.
    for (std::size_t done = 0; done < line.size();) {
        const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; // a journal that cannot grow only costs the resume, never the copy
        done += std::size_t(n);
    }
}

bool TransferJournal::fileDone(const std::string &dstPath) const
{
    std::lock_guard lock(m_mutex);
    return m_done.count(dstPath) > 0;
}

void TransferJournal::markFileDone(const std::string &dstPath)
{
    std::lock_guard lock(m_mutex);
    m_done.insert(dstPath);
    m_files.erase(dstPath);
    append("F " + encode(dstPath) + "\n");
}

void TransferJournal::markCommitting(const std::string &dstPath)
{
    std::lock_guard lock(m_mutex);
    m_committing.insert(dstPath);
    append("C " + encode(dstPath) + "\n");
}

bool TransferJournal::committing(const std::string &dstPath) const
{
    std::lock_guard lock(m_mutex);
    return m_committing.count(dstPath) > 0;
}

void TransferJournal::recordPending(const std::string &dstPath, const std::string &token)
{
    std::lock_guard lock(m_mutex);
    m_pending[dstPath].push_back(token);
    append("U " + encode(dstPath) + " " + encode(token) + "\n");
}

std::vector<std::string> TransferJournal::pending(const std::string &dstPath) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_pending.find(dstPath);
    return it == m_pending.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::pair<std::string, std::string>> TransferJournal::pendingUnfinished() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto &[path, tokens] : m_pending)
        if (!m_done.count(path))
            for (const auto &token : tokens)
                out.emplace_back(path, token);
    return out;
}

void TransferJournal::recordDestinationIsDir(bool into)
{
    std::lock_guard lock(m_mutex);
    m_destinationIsDir = into;
    append(into ? "D into\n" : "D as\n");
}

std::optional<bool> TransferJournal::destinationIsDir() const
{
    std::lock_guard lock(m_mutex);
    return m_destinationIsDir;
}

void TransferJournal::beginFile(const std::string &dstPath, std::uint64_t size, std::int64_t mtimeNs,
                                std::uint64_t partSize)
{
    std::lock_guard lock(m_mutex);
    m_files[dstPath] = FileState{size, mtimeNs, partSize, {}};
    append("S " + encode(dstPath) + " " + std::to_string(size) + " " + std::to_string(mtimeNs) + " "
           + std::to_string(partSize) + "\n");
}

std::optional<std::uint64_t> TransferJournal::partSize(const std::string &dstPath, std::uint64_t size,
                                                       std::int64_t mtimeNs) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_files.find(dstPath);
    if (it == m_files.end() || it->second.size != size || it->second.mtimeNs != mtimeNs)
        return std::nullopt;
    return it->second.partSize ? it->second.partSize : m_spec.options.partSize;
}

std::map<std::size_t, TransferJournal::PartRecord> TransferJournal::partsDone(const std::string &dstPath,
                                                                              std::uint64_t size, std::int64_t mtimeNs,
                                                                              std::uint64_t partSize) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_files.find(dstPath);
    if (it == m_files.end() || it->second.size != size || it->second.mtimeNs != mtimeNs)
        return {};
    if ((it->second.partSize ? it->second.partSize : m_spec.options.partSize) != partSize)
        return {}; // cut otherwise: part N is not the same range
    return it->second.parts;
}

void TransferJournal::markPartDone(const std::string &dstPath, std::size_t part, const std::string &hash)
{
    std::lock_guard lock(m_mutex);
    if (auto it = m_files.find(dstPath); it != m_files.end())
        it->second.parts[part] = PartRecord{hash};
    append("P " + encode(dstPath) + " " + std::to_string(part) + " " + (hash.empty() ? "-" : hash) + "\n");
}

std::vector<std::string> TransferJournal::filesBegun() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    for (const auto &[path, state] : m_files)
        if (!m_done.count(path))
            out.push_back(path);
    return out;
}

void TransferJournal::remove()
{
    std::lock_guard lock(m_mutex);
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    std::remove(m_path.c_str());
}

} // namespace strata
