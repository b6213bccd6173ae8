#include "core/walk/scan.h"

#include "core/io/json.h"
#include "core/io/zstd_stream.h"
#include "core/storage/path.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

namespace strata {

namespace {

constexpr std::string_view kFormat = "strata-scan";
constexpr int kVersion = 1;
constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

char kindLetter(EntryKind kind)
{
    switch (kind) {
    case EntryKind::File: return 'f';
    case EntryKind::Directory: return 'd';
    case EntryKind::Symlink: return 'l';
    case EntryKind::Other: return 'o';
    }
    return 'o';
}

std::optional<EntryKind> kindOf(std::string_view letter)
{
    if (letter == "f")
        return EntryKind::File;
    if (letter == "d")
        return EntryKind::Directory;
    if (letter == "l")
        return EntryKind::Symlink;
    if (letter == "o")
        return EntryKind::Other;
    return std::nullopt;
}

std::string hex(std::string_view bytes)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        out += kDigits[static_cast<unsigned char>(c) >> 4];
        out += kDigits[static_cast<unsigned char>(c) & 15];
    }
    return out;
}

std::optional<std::string> unhex(std::string_view text)
{
    if (text.size() % 2)
        return std::nullopt;
    const auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        return -1;
    };
    std::string out;
    out.reserve(text.size() / 2);
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int hi = digit(text[i]), lo = digit(text[i + 1]);
        if (hi < 0 || lo < 0)
            return std::nullopt;
        out += char(hi * 16 + lo);
    }
    return out;
}

// One entry's line: the path as a JSON string when it is UTF-8, else its bytes in hex.
void appendLine(std::string &out, const ScanEntry &e)
{
    if (auto quoted = json::writeExact(json::Value(e.path)))
        out.append("{\"p\":").append(*quoted);
    else
        out.append("{\"px\":\"").append(hex(e.path)).append("\"");
    out.append(",\"k\":\"").append(1, kindLetter(e.kind)).append("\",\"s\":").append(std::to_string(e.size));
    out.append(",\"a\":").append(std::to_string(e.allocated)).append(",\"t\":").append(std::to_string(e.mtimeNs));
    if (e.kept != Kept::No)
        out.append(e.kept == Kept::OldVersions ? ",\"h\":\"v\"" : ",\"h\":\"u\"");
    out.append("}\n");
}

Error corrupt(const std::string &file, std::size_t line, const std::string &what)
{
    return Error(ErrorKind::Corrupt, "not a readable strata scan: line " + std::to_string(line) + ": " + what)
        .withContext("open", file);
}

// Reads the lines of a scan, decompressed as they arrive.
class ScanReader {
public:
    explicit ScanReader(std::string file) : m_file(std::move(file)) {}

    Status take(std::string_view chunk)
    {
        m_pending.append(chunk);
        std::size_t start = 0;
        for (std::size_t nl; (nl = m_pending.find('\n', start)) != std::string::npos; start = nl + 1)
            if (auto st = line(std::string_view(m_pending).substr(start, nl - start)); !st)
                return st;
        m_pending.erase(0, start);
        return {};
    }

    Result<Scan> finish()
    {
        if (!m_pending.empty())
            if (auto st = line(m_pending); !st)
                return std::move(st).error();
        if (!m_header)
            return corrupt(m_file, 1, "the file is empty");
        if (m_scan.entries.size() != m_expected)
            return corrupt(m_file, m_line + 1,
                           "cut short: " + std::to_string(m_scan.entries.size()) + " of " + std::to_string(m_expected)
                               + " entries");
        return std::move(m_scan);
    }

private:
    Status line(std::string_view text)
    {
        ++m_line;
        if (text.empty())
            return {};
        std::string why;
        auto value = json::parse(text, &why);
        if (!value || !value->is_object())
            return corrupt(m_file, m_line, value ? "not a JSON object" : why);
        if (!m_header) {
            if (json::get(*value, "format", std::string()) != kFormat)
                return corrupt(m_file, m_line, "no strata-scan header");
            if (json::get(*value, "version", 0) != kVersion)
                return corrupt(m_file, m_line, "a scan of another version than " + std::to_string(kVersion));
            m_scan.root = json::get(*value, "root", std::string());
            m_scan.takenNs = json::get(*value, "taken", std::int64_t(0));
            m_expected = json::get(*value, "entries", std::uint64_t(0));
            m_header = true;
            return {};
        }
        ScanEntry e;
        if (value->contains("p") && (*value)["p"].is_string()) {
            e.path = (*value)["p"].get<std::string>();
        } else if (auto raw = unhex(json::get(*value, "px", std::string()))) {
            e.path = std::move(*raw);
        } else {
            return corrupt(m_file, m_line, "an entry without a path");
        }
        const auto kind = kindOf(json::get(*value, "k", std::string()));
        if (!kind || e.path.empty())
            return corrupt(m_file, m_line, "an entry without a path or kind");
        e.kind = *kind;
        e.size = json::get(*value, "s", std::uint64_t(0));
        e.allocated = json::get(*value, "a", std::uint64_t(0));
        e.mtimeNs = json::get(*value, "t", std::int64_t(0));
        if (const std::string kept = json::get(*value, "h", std::string()); kept == "v")
            e.kept = Kept::OldVersions;
        else if (kept == "u")
            e.kept = Kept::Upload;
        else if (!kept.empty())
            return corrupt(m_file, m_line, "an entry kept as something unknown");
        m_scan.entries.push_back(std::move(e));
        return {};
    }

    std::string m_file;
    std::string m_pending;
    std::size_t m_line = 0;
    bool m_header = false;
    std::uint64_t m_expected = 0;
    Scan m_scan;
};

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};

} // namespace

Status saveScan(const Scan &scan, const std::string &file)
{
    std::string tmp = file + ".XXXXXX";
    const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0)
        return errorFromErrno(errno).withContext("save", file);
    std::string text = json::write(json::Object{{"format", kFormat},
                                                {"version", kVersion},
                                                {"root", scan.root},
                                                {"taken", scan.takenNs},
                                                {"entries", scan.entries.size()}},
                                   json::Format::Compact);
    text += '\n';
    std::size_t next = 0, offset = 0;
    // The text is made a few thousand lines at a time as the compressor asks for it.
    const StreamRead read = [&](std::span<std::byte> into) -> Result<std::size_t> {
        while (offset == text.size() && next < scan.entries.size()) {
            text.clear();
            offset = 0;
            for (const std::size_t end = std::min(scan.entries.size(), next + 4096); next < end; ++next)
                appendLine(text, scan.entries[next]);
        }
        const std::size_t n = std::min(into.size(), text.size() - offset);
        std::memcpy(into.data(), text.data() + offset, n);
        offset += n;
        return n;
    };
    const StreamWrite write = [&](std::span<const std::byte> data) -> Status {
        for (std::size_t done = 0; done < data.size();) {
            const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return errorFromErrno(errno);
            done += std::size_t(n);
        }
        return {};
    };
    ZstdOptions options;
    options.threads = 1;
    auto totals = zstdCompress(read, write, options);
    Status st = totals ? Status() : Status(std::move(totals).error());
    if (st && ::fsync(fd) != 0)
        st = errorFromErrno(errno);
    if (::close(fd) != 0 && st)
        st = errorFromErrno(errno);
    if (st && ::rename(tmp.c_str(), file.c_str()) != 0)
        st = errorFromErrno(errno);
    if (!st) {
        ::unlink(tmp.c_str());
        return std::move(st).error().withContext("save", file);
    }
    return {};
}

bool looksLikeScan(const std::string &file)
{
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(file.c_str(), "rbe"));
    if (!f)
        return false;
    char head[32] = {};
    const std::size_t n = std::fread(head, 1, sizeof head, f.get());
    if (n >= 4 && std::memcmp(head, kZstdMagic, 4) == 0)
        return true;
    return std::string_view(head, n).find("\"format\":\"strata-scan\"") != std::string_view::npos;
}

Result<Scan> loadScan(const std::string &file)
{
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(file.c_str(), "rbe"));
    if (!f)
        return errorFromErrno(errno).withContext("open", file);
    const StreamRead read = [&](std::span<std::byte> into) -> Result<std::size_t> {
        const std::size_t n = std::fread(into.data(), 1, into.size(), f.get());
        if (n == 0 && std::ferror(f.get()))
            return errorFromErrno(EIO);
        return n;
    };
    ScanReader reader(file);
    unsigned char magic[4] = {};
    const std::size_t got = std::fread(magic, 1, sizeof magic, f.get());
    if (got == 4 && std::memcmp(magic, kZstdMagic, 4) == 0) {
        std::rewind(f.get());
        auto totals = zstdDecompress(read, [&](std::span<const std::byte> data) {
            return reader.take({reinterpret_cast<const char *>(data.data()), data.size()});
        });
        if (!totals)
            return std::move(totals).error().withContext("open", file);
    } else {
        // JSON lines as `zstd -d` leaves them.
        if (auto st = reader.take({reinterpret_cast<const char *>(magic), got}); !st)
            return std::move(st).error();
        std::array<std::byte, 1 << 16> buffer;
        for (;;) {
            auto n = read(buffer);
            if (!n)
                return std::move(n).error().withContext("open", file);
            if (*n == 0)
                break;
            if (auto st = reader.take({reinterpret_cast<const char *>(buffer.data()), *n}); !st)
                return std::move(st).error();
        }
    }
    return reader.finish();
}

std::string_view toString(ScanChange::Kind kind)
{
    switch (kind) {
    case ScanChange::Kind::Grown: return "grew";
    case ScanChange::Kind::Shrunk: return "shrank";
    case ScanChange::Kind::Appeared: return "appeared";
    case ScanChange::Kind::Vanished: return "vanished";
    }
    return "changed";
}

namespace {

struct Sized {
    EntryKind kind;
    std::uint64_t size; // a folder: everything below it and its own
};

using SizeMap = std::unordered_map<std::string_view, Sized>;

// Every entry's size, folders with everything below them; the total of the whole scan.
std::uint64_t sizesOf(const Scan &scan, bool apparent, SizeMap &sizes)
{
    // Kept versions and uploads share their object's path: compared are the objects.
    const auto listed = [](const ScanEntry &e) { return e.kept == Kept::No; };
    sizes.reserve(scan.entries.size());
    for (const auto &e : scan.entries)
        if (listed(e))
            sizes[e.path] = {e.kind, 0};
    std::uint64_t total = 0;
    for (const auto &e : scan.entries) {
        if (!listed(e))
            continue;
        const std::uint64_t own = apparent ? (e.kind == EntryKind::Directory ? 0 : e.size) : e.allocated;
        total += own;
        std::string_view path = e.path;
        for (;;) {
            if (auto it = sizes.find(path); it != sizes.end())
                it->second.size += own;
            const auto slash = path.rfind('/');
            if (slash == std::string_view::npos)
                break;
            path = path.substr(0, slash);
        }
    }
    return total;
}

std::string_view parentOf(std::string_view path)
{
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

int depthOf(std::string_view path)
{
    return int(std::count(path.begin(), path.end(), '/')) + 1;
}

// Whether the entry is there as the same sort of thing (a folder stays a folder).
bool present(const SizeMap &sizes, std::string_view path, EntryKind kind)
{
    const auto it = sizes.find(path);
    return it != sizes.end() && (it->second.kind == EntryKind::Directory) == (kind == EntryKind::Directory);
}

} // namespace

Status listKept(Operator &op, std::string_view root, const std::function<void(const ScanEntry &)> &sink,
                const std::stop_token &stop)
{
    const std::string base = root == "/" ? "/" : std::string(root) + "/";
    const auto relative = [&](const std::string &path) { return path.substr(std::min(path.size(), base.size())); };
    // A server that does not implement the listing keeps nothing we can show.
    const auto quiet = [](const Error &e) { return e.kind() == ErrorKind::Unsupported; };
    if (op.capabilities().has(Capability::Versions)) {
        // Versions come by object, newest first: an object's older ones are summed and
        // given when the next object starts.
        ScanEntry older;
        const auto flush = [&] {
            if (!older.path.empty() && older.size > 0)
                sink(older);
            older = {};
        };
        ListOptions options;
        do {
            if (stop.stop_requested())
                return {};
            auto page = op.listVersions(root, options);
            if (!page)
                return quiet(page.error()) ? Status() : Status(std::move(page).error());
            for (const StoredVersion &v : page->versions) {
                if (v.latest || v.deleteMarker || !isStrictlyBelow(v.path, root))
                    continue;
                const std::string rel = relative(v.path);
                if (rel != older.path) {
                    flush();
                    older = {rel, EntryKind::File, 0, 0, v.mtimeNs, Kept::OldVersions};
                }
                older.size += v.size;
                older.allocated += v.size;
            }
            options.pageToken = std::move(page->nextPageToken);
        } while (!options.pageToken.empty());
        flush();
    }
    if (op.capabilities().has(Capability::Uploads)) {
        ListOptions options;
        do {
            if (stop.stop_requested())
                return {};
            auto page = op.listUploads(root, options);
            if (!page)
                return quiet(page.error()) ? Status() : Status(std::move(page).error());
            for (const PendingUpload &u : page->uploads)
                if (isStrictlyBelow(u.path, root))
                    sink({relative(u.path), EntryKind::File, u.bytes, u.bytes, u.initiatedNs, Kept::Upload});
            options.pageToken = std::move(page->nextPageToken);
        } while (!options.pageToken.empty());
    }
    return {};
}

ScanComparison compareScans(const Scan &before, const Scan &after, bool apparent, int maxDepth)
{
    SizeMap old, now;
    ScanComparison out;
    out.before = sizesOf(before, apparent, old);
    out.after = sizesOf(after, apparent, now);
    const auto listed = [&](std::string_view path) { return maxDepth <= 0 || depthOf(path) <= maxDepth; };
    for (const auto &[path, entry] : now) {
        if (!present(old, path, entry.kind)) {
            // Only the topmost of what appeared: not what is inside a folder that did.
            const std::string_view parent = parentOf(path);
            if (!parent.empty() && !present(old, parent, EntryKind::Directory))
                continue;
            ++out.appeared;
            if (listed(path))
                out.changes.push_back({std::string(path), entry.kind, ScanChange::Kind::Appeared, 0, entry.size});
            continue;
        }
        const Sized &was = old.at(path);
        if (was.size == entry.size)
            continue;
        const bool grew = entry.size > was.size;
        ++(grew ? out.grown : out.shrunk);
        if (listed(path))
            out.changes.push_back({std::string(path), entry.kind,
                                   grew ? ScanChange::Kind::Grown : ScanChange::Kind::Shrunk, was.size, entry.size});
    }
    for (const auto &[path, entry] : old) {
        if (present(now, path, entry.kind))
            continue;
        const std::string_view parent = parentOf(path);
        if (!parent.empty() && !present(now, parent, EntryKind::Directory))
            continue;
        ++out.vanished;
        if (listed(path))
            out.changes.push_back({std::string(path), entry.kind, ScanChange::Kind::Vanished, entry.size, 0});
    }
    std::sort(out.changes.begin(), out.changes.end(), [](const ScanChange &a, const ScanChange &b) {
        const auto magnitude = [](const ScanChange &c) { return c.delta() < 0 ? -c.delta() : c.delta(); };
        if (magnitude(a) != magnitude(b))
            return magnitude(a) > magnitude(b);
        return a.path < b.path;
    });
    return out;
}

Result<std::vector<StoredVersion>> objectVersions(Operator &op, const std::string &path)
{
    std::vector<StoredVersion> out;
    ListOptions options;
    const std::string dir(parentPath(path));
    do {
        auto page = op.listVersions(dir, options);
        if (!page)
            return std::move(page).error();
        for (auto &v : page->versions)
            if (v.path == path)
                out.push_back(std::move(v));
        options.pageToken = std::move(page->nextPageToken);
    } while (!options.pageToken.empty());
    return out;
}

} // namespace strata
