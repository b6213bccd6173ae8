#include "core/transfer/transfer_plan.h"

#include "core/io/text_case.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"
#include "core/transfer/file_copier.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace strata {

namespace {

// A directory known only from keys listed under it.
Entry prefixEntry(const std::string &path)
{
    Entry entry;
    entry.name = std::string(baseName(path));
    entry.path = path;
    entry.kind = EntryKind::Directory;
    return entry;
}

// mtimes within a second count as equal: some stores keep only seconds. A destination
// that cannot take the source's time (S3 stamps the upload time) is up to date when it
// is at least as new as the source.
bool sameVersion(const Entry &src, const Entry &dst, bool dstKeepsTimes)
{
    if (!dst.isFile() || src.size != dst.size)
        return false;
    if (!src.mtimeNs || !dst.mtimeNs)
        return true; // size is all there is to compare
    const auto diff = *src.mtimeNs - *dst.mtimeNs;
    if (!dstKeepsTimes)
        return diff < 1'000'000'000;
    return diff > -1'000'000'000 && diff < 1'000'000'000;
}

class Planner {
public:
    Planner(const TransferSpec &spec, const std::stop_token &stop, const PlanProgress &found)
        : m_spec(spec), m_stop(stop), m_found(found)
    {
    }

    TransferPlan plan;

    Error cancelled() const { return Error(ErrorKind::Cancelled, "stopped while finding what to copy"); }

    // fresh: a file under a folder the copy makes (newFolder), or a lone file found absent.
    void addFile(const std::shared_ptr<Operator> &srcOp, const Entry &entry, std::string dstPath, const Entry *existing,
                 bool fresh = false, bool newFolder = false)
    {
        if (m_spec.options.mode == TransferMode::Sync && existing && upToDate(*srcOp, entry, *existing)) {
            ++plan.unchanged;
            return;
        }
        plan.bytesTotal += entry.size;
        plan.files.push_back(FileTask{srcOp, entry.path, std::move(dstPath), entry, fresh, newFolder});
        if (m_found && plan.files.size() % 256 == 0)
            m_found(plan.files.size(), plan.bytesTotal);
    }

    bool upToDate(Operator &srcOp, const Entry &src, const Entry &dst)
    {
        if (!m_spec.options.compareContent)
            return sameVersion(src, dst, plan.dstOp->capabilities().has(Capability::KeepsModifiedTime));
        if (!dst.isFile() || src.size != dst.size)
            return false;
        auto a = objectHash(srcOp, src.path, m_stop);
        auto b = objectHash(*plan.dstOp, dst.path, m_stop);
        return a && b && *a == *b;
    }

    void refuse(const std::shared_ptr<Operator> &op, std::string_view path, Error error)
    {
        plan.refused.push_back(
            {op->display(path), {}, error.kind(), error.withContext("copy", op->display(path)).message()});
    }

    // A source listing left names out that are no path: the copy of that folder is not whole.
    void refuseSkipped(const std::shared_ptr<Operator> &op, std::string_view dir,
                       const std::vector<std::string> &skipped)
    {
        for (const auto &raw : skipped)
            plan.refused.push_back(
                {op->display(dir), {}, ErrorKind::InvalidInput, skippedNameWarning(op->display(dir), raw)});
    }

    // Walks a source directory into dst, breadth first, page by page.
    Status walk(const std::shared_ptr<Operator> &srcOp, const std::string &srcRoot, const std::string &dstRoot,
                bool fresh)
    {
        const bool sync = m_spec.options.mode == TransferMode::Sync;
        std::deque<std::pair<std::string, std::string>> todo{{srcRoot, dstRoot}};
        while (!todo.empty()) {
            if (m_stop.stop_requested())
                return cancelled();
            auto [srcDir, dstDir] = std::move(todo.front());
            todo.pop_front();
            if (m_spec.options.mode == TransferMode::Move)
                plan.sourceDirs.emplace_back(srcOp, srcDir);
            std::map<std::string, Entry, std::less<>> existing;
            if (sync)
                listExisting(dstDir, existing);
            ListOptions options;
            do {
                auto page = srcOp->list(srcDir, options);
                if (!page) {
                    refuse(srcOp, srcDir, std::move(page).error());
                    break;
                }
                refuseSkipped(srcOp, srcDir, page->skipped);
                for (auto &entry : page->entries) {
                    if (!isValidName(entry.name)) {
                        refuse(srcOp, entry.path,
                               Error(ErrorKind::InvalidInput, "its name would lead outside the destination; refused"));
                        continue;
                    }
                    const std::string dstPath = joinPath(dstDir, entry.name);
                    auto found = existing.find(entry.name);
                    const Entry *there = found == existing.end() ? nullptr : &found->second;
                    if (found != existing.end())
                        found->second.name.clear(); // seen: not an extra
                    switch (entry.kind) {
                    case EntryKind::File: addFile(srcOp, entry, dstPath, there, fresh, fresh); break;
                    case EntryKind::Directory:
                        if (!there || !there->isDir())
                            plan.dirs.push_back(dstPath);
                        // Folders that were there keep their bits (as with cp) unless asked.
                        if (entry.mode && ((!there && (fresh || sync)) || m_spec.options.preserveMode))
                            plan.dirModes.emplace_back(dstPath, *entry.mode);
                        todo.emplace_back(entry.path, dstPath);
                        break;
                    case EntryKind::Symlink:
                        plan.notCopied.push_back(
                            {srcOp->display(entry.path),
                             "a symbolic link (to " + entry.symlinkTarget + "); links are not followed"});
                        break;
                    case EntryKind::Other:
                        plan.notCopied.push_back({srcOp->display(entry.path), "not a regular file"});
                        break;
                    }
                }
                options.pageToken = std::move(page->nextPageToken);
            } while (!options.pageToken.empty());
            if (sync && m_spec.options.deleteExtra)
                for (const auto &[name, entry] : existing)
                    if (!entry.name.empty())
                        plan.extras.push_back(entry.path);
        }
        return {};
    }

    // One flat listing of the whole subtree where the source offers it (S3 without a
    // delimiter: a request per thousand keys rather than one per directory).
    Status flatWalk(const std::shared_ptr<Operator> &srcOp, const std::string &srcRoot, const std::string &dstRoot,
                    bool fresh, std::optional<ListPage> first = std::nullopt)
    {
        const std::string base = srcRoot == "/" ? std::string("/") : srcRoot + "/";
        std::set<std::string, std::less<>> dirsSeen;
        auto addDir = [&](std::string dir) {
            if (dirsSeen.insert(dir).second)
                plan.dirs.push_back(std::move(dir));
        };
        ListOptions options;
        options.recursive = true;
        do {
            if (m_stop.stop_requested())
                return cancelled();
            auto page = first ? Result<ListPage>(std::move(*first)) : srcOp->list(srcRoot, options);
            first.reset();
            if (!page) {
                refuse(srcOp, srcRoot, std::move(page).error());
                break;
            }
            refuseSkipped(srcOp, srcRoot, page->skipped);
            for (auto &entry : page->entries) {
                if (!entry.path.starts_with(base))
                    continue;
                const std::string_view rel = std::string_view(entry.path).substr(base.size());
                // Every segment must be a plain name: nothing may lead outside the destination.
                bool valid = !rel.empty();
                std::string dst = dstRoot;
                for (std::size_t pos = 0; valid && pos <= rel.size();) {
                    std::size_t end = rel.find('/', pos);
                    if (end == std::string_view::npos)
                        end = rel.size();
                    const auto segment = rel.substr(pos, end - pos);
                    valid = isValidName(segment);
                    dst = joinPath(dst, segment);
                    if (valid && end < rel.size())
                        addDir(dst); // parents first
                    pos = end + 1;
                }
                if (!valid) {
                    refuse(srcOp, entry.path,
                           Error(ErrorKind::InvalidInput, "its name would lead outside the destination; refused"));
                    continue;
                }
                switch (entry.kind) {
                case EntryKind::File: addFile(srcOp, entry, std::move(dst), nullptr, fresh, fresh); break;
                case EntryKind::Directory: addDir(std::move(dst)); break;
                case EntryKind::Symlink:
                case EntryKind::Other:
                    plan.notCopied.push_back({srcOp->display(entry.path), "not a regular file"});
                    break;
                }
            }
            options.pageToken = std::move(page->nextPageToken);
        } while (!options.pageToken.empty());
        return {};
    }

    void listExisting(const std::string &dstDir, std::map<std::string, Entry, std::less<>> &out)
    {
        ListOptions options;
        do {
            auto page = plan.dstOp->list(dstDir, options);
            if (!page)
                return; // missing: everything is new
            for (const auto &raw : page->skipped)
                plan.warnings.push_back(skippedNameWarning(plan.dstOp->display(dstDir), raw));
            for (auto &e : page->entries) {
                auto name = e.name;
                out.emplace(std::move(name), std::move(e));
            }
            options.pageToken = std::move(page->nextPageToken);
        } while (!options.pageToken.empty());
    }

private:
    const TransferSpec &m_spec;
    const std::stop_token &m_stop;
    const PlanProgress &m_found;
};

// On a destination that ignores case, names that differ only in case are one name: folders
// so named merge under the first spelling (as they would there), and of the files that
// would land on one name, the first (in listing order) is copied and the others are refused
// with a sentence naming both.
void refuseCaseCollisions(TransferPlan &plan, const Location &dst)
{
    std::unordered_map<std::string, std::string> spelling; // folded folder -> its first spelling
    // `path` with each of its folders spelled as first met.
    auto canonical = [&](std::string_view path) {
        std::string out;
        std::size_t pos = 0;
        while (pos < path.size()) {
            const std::size_t next = std::min(path.find('/', pos + 1), path.size());
            out.append(path.substr(pos, next - pos));
            if (next < path.size())
                if (auto it = spelling.find(foldCase(out)); it != spelling.end())
                    out = it->second;
            pos = next;
        }
        return out;
    };
    std::vector<std::string> dirs;
    for (const auto &dir : plan.dirs) {
        std::string spelled = canonical(dir);
        if (spelling.try_emplace(foldCase(spelled), spelled).second)
            dirs.push_back(std::move(spelled));
    }
    plan.dirs = std::move(dirs);
    std::unordered_map<std::string, std::size_t> first; // folded destination path -> kept file
    std::vector<FileTask> kept;
    kept.reserve(plan.files.size());
    for (auto &task : plan.files) {
        task.dstPath = canonical(task.dstPath);
        auto [it, inserted] = first.try_emplace(foldCase(task.dstPath), kept.size());
        if (inserted) {
            kept.push_back(std::move(task));
            continue;
        }
        const FileTask &winner = kept[it->second];
        plan.bytesTotal -= task.source.size;
        plan.refused.push_back({task.srcOp->display(task.srcPath), dst.op->display(task.dstPath),
                                ErrorKind::AlreadyExists,
                                "not copied " + task.srcOp->display(task.srcPath) + ": " + dst.op->display(dst.path)
                                    + " ignores the case of names, and there it would be the same file as "
                                    + winner.srcOp->display(winner.srcPath)});
    }
    plan.files = std::move(kept);
}

// A local file system's root, where the transfer would remove or replace what is in it,
// is refused before anything is listed: a mistyped destination must not empty /.
Status refuseLocalRoot(Registry &registry, const TransferSpec &spec, const Location &dst)
{
    const TransferOptions &o = spec.options;
    if (o.mode == TransferMode::Sync && o.deleteExtra)
        if (auto st =
                dst.op->guardLocalRoot(dst.path, "delete what the source lacks from it", "sync to", o.allowLocalRoot);
            !st)
            return st;
    if (o.mode != TransferMode::Move)
        return {};
    if (o.existing == ExistingPolicy::Overwrite)
        if (auto st = dst.op->guardLocalRoot(dst.path, "replace what is in it", "move to", o.allowLocalRoot); !st)
            return st;
    for (const auto &source : spec.sources)
        if (auto src = registry.open(source); src)
            if (auto st =
                    src->op->guardLocalRoot(src->path, "move it (a move removes its source)", "move", o.allowLocalRoot);
                !st)
                return st;
    return {};
}

} // namespace

Result<TransferPlan> planTransfer(Registry &registry, const TransferSpec &spec, const std::stop_token &stop,
                                  const PlanProgress &found)
{
    Planner planner(spec, stop, found);
    auto &plan = planner.plan;
    auto dst = registry.open(spec.destination);
    if (!dst)
        return std::move(dst).error();
    plan.dstOp = dst->op;
    const bool sync = spec.options.mode == TransferMode::Sync;
    if (sync && spec.sources.size() != 1)
        return Error(ErrorKind::InvalidInput, "sync takes exactly one source");
    if (auto st = refuseLocalRoot(registry, spec, *dst); !st)
        return std::move(st).error();
    auto dstEntry = dst->op->stat(dst->path);
    if (!dstEntry && dstEntry.error().kind() != ErrorKind::NotFound)
        return std::move(dstEntry).error();
    const auto typed = Uri::parse(spec.destination);
    const bool slash = typed ? typed->path().ends_with('/') : spec.destination.ends_with('/');
    // An existing file stays a file even when its URI ends in '/' (an NBD export's is "/").
    const bool dstIsDir = spec.destinationIsDir
        ? *spec.destinationIsDir
        : (dstEntry && dstEntry->isDir()) || (!dstEntry && slash) || spec.sources.size() > 1;
    plan.dstIsDir = dstIsDir;
    plan.dstRoot = dst->path;
    if (dstEntry && !dstEntry->isDir() && spec.sources.size() > 1)
        return Error(ErrorKind::NotDirectory, "several sources need a directory to copy into")
            .withContext("copy to", dst->display());
    if (dstIsDir && !dstEntry && dst->path != "/")
        plan.dirs.push_back(dst->path);

    for (const auto &source : spec.sources) {
        if (stop.stop_requested())
            return planner.cancelled();
        auto src = registry.open(source);
        if (!src) {
            plan.refused.push_back({source, {}, src.error().kind(), src.error().message()});
            continue;
        }
        // Where directories are only key prefixes (object stores), a recursive copy asks for
        // the flat listing first: a prefix with keys is a directory, and its first page is
        // already the start of the walk. That saves the stat's own listing probe, a request
        // that costs a store nearly as much as the listing itself. Nothing listed: stat.
        const auto srcCaps = src->op->capabilities();
        const bool listFirst = spec.options.recursive && spec.options.mode == TransferMode::Copy && src->path != "/"
            && srcCaps.has(Capability::ListRecursive) && !srcCaps.has(Capability::RealDirectories);
        std::optional<ListPage> firstPage;
        if (listFirst) {
            ListOptions options;
            options.recursive = true;
            if (auto page = src->op->list(src->path, options);
                page && (!page->entries.empty() || !page->nextPageToken.empty()))
                firstPage = std::move(*page);
        }
        auto entry = firstPage ? Result<Entry>(prefixEntry(src->path)) : src->op->stat(src->path);
        if (!entry) {
            planner.refuse(src->op, src->path, std::move(entry).error());
            continue;
        }
        // "dir/.": its contents go straight into the destination (cp's rule).
        const auto typedSource = Uri::parse(source);
        const bool contentsOnly = typedSource && typedSource->path().ends_with("/.");
        if (contentsOnly && !entry->isDir()) {
            planner.refuse(src->op, src->path, Error(ErrorKind::NotDirectory, "'/.' names a directory's contents"));
            continue;
        }
        std::string target = dst->path;
        if (dstIsDir && !sync && src->path != "/" && !contentsOnly)
            target = joinPath(dst->path, baseName(src->path));
        else if (dstIsDir && !sync && entry->kind == EntryKind::File && isValidName(entry->name))
            target = joinPath(dst->path, entry->name); // a backend that is one object (an NBD export)
        if (entry->isDir()) {
            if (!spec.options.recursive && !sync) {
                planner.refuse(src->op, src->path,
                               Error(ErrorKind::IsDirectory, "use -r to copy a directory and its contents"));
                continue;
            }
            if (src->sameBackend(*dst)
                && (target == src->path || target.starts_with(src->path == "/" ? "/" : src->path + "/"))) {
                planner.refuse(src->op, src->path,
                               Error(ErrorKind::InvalidInput, "a directory cannot be copied into itself"));
                continue;
            }
            if (target != dst->path || !dstEntry)
                if (std::find(plan.dirs.begin(), plan.dirs.end(), target) == plan.dirs.end())
                    plan.dirs.push_back(target);
            // A target that does not exist yet holds nothing to overwrite: its files skip
            // the per-file existence check (one request each on remote stores). Nothing is
            // under a destination found absent above: no second look.
            const bool fresh = !sync && (!dstEntry || (target != dst->path && !dst->op->stat(target)));
            if (entry->mode && (fresh || (sync && !dstEntry) || spec.options.preserveMode))
                plan.dirModes.emplace_back(target, *entry->mode);
            const bool flat =
                spec.options.mode == TransferMode::Copy && src->op->capabilities().has(Capability::ListRecursive);
            if (auto st = flat ? planner.flatWalk(src->op, src->path, target, fresh, std::move(firstPage))
                               : planner.walk(src->op, src->path, target, fresh);
                !st)
                return std::move(st).error();
        } else if (entry->kind == EntryKind::File) {
            if (src->sameBackend(*dst) && src->path == target) {
                planner.refuse(src->op, src->path,
                               Error(ErrorKind::InvalidInput, "source and destination are the same object"));
                continue;
            }
            Entry existing;
            const Entry *there = nullptr;
            if (sync) {
                if (auto e = dst->op->stat(target); e) {
                    existing = std::move(*e);
                    there = &existing;
                }
            }
            // Nothing was at the destination a moment ago (the stat above): the write skips
            // its own look (a round trip on a remote store); the commit still never replaces
            // what appeared meanwhile unless asked to.
            planner.addFile(src->op, *entry, target, there, !sync && !dstEntry);
        } else {
            plan.notCopied.push_back({src->display(), "not a regular file or directory"});
        }
    }
    // Names can collide only when there are two (a lone file needs no look at the folder).
    const bool ignoresCase = plan.files.size() + plan.dirs.size() > 1
        && (spec.options.destinationIgnoresCase ? *spec.options.destinationIgnoresCase
                                                : dst->op->namesIgnoreCase(dst->path));
    if (ignoresCase)
        refuseCaseCollisions(plan, *dst);
    // Moves remove emptied source directories deepest first.
    std::reverse(plan.sourceDirs.begin(), plan.sourceDirs.end());
    if (found)
        found(plan.files.size(), plan.bytesTotal);
    return std::move(plan);
}

} // namespace strata
