#include "core/transfer/transfer_journal.h"

#include "core/storage/uri.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <pwd.h>
#include <unistd.h>

namespace strata {

namespace {

constexpr std::string_view kSpecSuffix = ".transfer.json";
constexpr std::string_view kLogSuffix = ".transfer.log";

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

bool writeWhole(const std::string &path, const std::string &text)
{
    std::FILE *f = std::fopen(path.c_str(), "we");
    if (!f)
        return false;
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    return std::fclose(f) == 0 && written;
}

std::optional<std::string> readWhole(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "re");
    if (!f)
        return std::nullopt;
    std::string text;
    char buf[16384];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
        text.append(buf, n);
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed)
        return std::nullopt;
    return text;
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
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir, ec))
        return Error(ErrorKind::PermissionDenied, "cannot create the transfer journal folder " + dir);
    std::unique_ptr<TransferJournal> journal(new TransferJournal);
    journal->m_jobId = jobId;
    journal->m_spec = spec;
    journal->m_specPath = dir + "/" + jobId + std::string(kSpecSuffix);
    journal->m_logPath = dir + "/" + jobId + std::string(kLogSuffix);
    json::Object doc = spec.toJson();
    doc["job"] = jobId;
    doc["identity"] = spec.identity();
    // Written whole under a temporary name, then renamed: a crash leaves no half journal.
    // No fsync: the journal has to survive the process, not a power cut.
    const std::string tmp = journal->m_specPath + ".tmp";
    if (!writeWhole(tmp, json::write(std::move(doc)))) {
        std::remove(tmp.c_str());
        return Error(ErrorKind::Unexpected, "cannot write the transfer journal " + journal->m_specPath);
    }
    if (std::rename(tmp.c_str(), journal->m_specPath.c_str()) != 0)
        return errorFromErrno(errno, "while writing the transfer journal");
    journal->m_log = std::fopen(journal->m_logPath.c_str(), "ae");
    if (!journal->m_log)
        return errorFromErrno(errno, "while opening the transfer journal");
    return journal;
}

Result<std::unique_ptr<TransferJournal>> TransferJournal::load(const std::string &specPath)
{
    const auto text = readWhole(specPath);
    if (!text)
        return Error(ErrorKind::NotFound, "cannot read the transfer journal " + specPath);
    const auto doc = json::parse(*text);
    if (!doc || !doc->isObject())
        return Error(ErrorKind::Corrupt, "the transfer journal " + specPath + " is damaged");
    auto spec = TransferSpec::fromJson(*doc);
    if (!spec)
        return std::move(spec).error();
    std::unique_ptr<TransferJournal> journal(new TransferJournal);
    journal->m_spec = std::move(*spec);
    journal->m_jobId = (*doc)["job"].toString();
    journal->m_specPath = specPath;
    journal->m_logPath = specPath.substr(0, specPath.size() - kSpecSuffix.size()) + std::string(kLogSuffix);
    journal->replay(journal->m_logPath);
    journal->m_log = std::fopen(journal->m_logPath.c_str(), "ae");
    if (!journal->m_log)
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
        if (!name.ends_with(kSpecSuffix) || !it->is_regular_file(ec))
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
    if (m_log)
        std::fclose(m_log);
}

bool TransferJournal::replay(const std::string &logPath)
{
    std::FILE *f = std::fopen(logPath.c_str(), "re");
    if (!f)
        return false;
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
    std::fclose(f);
    return true;
}

void TransferJournal::append(const std::string &line)
{
    if (!m_log)
        return;
    std::fputs(line.c_str(), m_log);
    std::fflush(m_log); // into the kernel: survives the process being killed
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

void TransferJournal::beginFile(const std::string &dstPath, std::uint64_t size, std::int64_t mtimeNs)
{
    std::lock_guard lock(m_mutex);
    m_files[dstPath] = FileState{size, mtimeNs, {}};
    append("S " + encode(dstPath) + " " + std::to_string(size) + " " + std::to_string(mtimeNs) + "\n");
}

std::map<std::size_t, TransferJournal::PartRecord> TransferJournal::partsDone(const std::string &dstPath,
                                                                             std::uint64_t size, std::int64_t mtimeNs) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_files.find(dstPath);
    if (it == m_files.end() || it->second.size != size || it->second.mtimeNs != mtimeNs)
        return {};
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
    if (m_log)
        std::fclose(m_log);
    m_log = nullptr;
    std::remove(m_logPath.c_str());
    std::remove(m_specPath.c_str());
}

} // namespace strata
