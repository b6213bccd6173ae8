#include "core/transfer/folder_compare.h"

#include "core/storage/capabilities.h"
#include "core/transfer/file_copier.h"

#include <atomic>
#include <map>
#include <set>
#include <thread>

namespace strata {

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

using Tree = std::map<std::string, FolderDifference::Side, std::less<>>;

struct Walked {
    Tree tree;
    Result<WalkSummary> summary = WalkSummary{};
};

void walkSide(Operator &op, std::string_view root, const FolderCompareOptions &options, const std::stop_token &stop,
              std::atomic<std::uint64_t> &found, Walked &out)
{
    WalkOptions walk;
    walk.stat = true;
    walk.excludes = options.excludes;
    out.summary = walkTree(
        op, root, walk,
        [&](std::span<const WalkEntry> batch) {
            for (const auto &e : batch)
                out.tree.emplace(std::string(e.path), FolderDifference::Side{e.kind, e.size, e.mtimeNs});
            const auto total = found.fetch_add(batch.size()) + batch.size();
            if (options.progress)
                options.progress(total);
        },
        stop);
}

// Whether a folder reported as only on one side (or of another kind) holds `path`.
bool below(const std::set<std::string, std::less<>> &folders, std::string_view path)
{
    for (auto slash = path.rfind('/'); slash != std::string_view::npos; slash = path.rfind('/', slash - 1)) {
        if (folders.contains(path.substr(0, slash)))
            return true;
        if (slash == 0)
            break;
    }
    return false;
}

} // namespace

std::string_view toString(FolderDifference::Kind kind)
{
    switch (kind) {
    case FolderDifference::Kind::OnlyA: return "only-a";
    case FolderDifference::Kind::OnlyB: return "only-b";
    case FolderDifference::Kind::NewerA: return "newer-a";
    case FolderDifference::Kind::NewerB: return "newer-b";
    case FolderDifference::Kind::Different: return "different";
    case FolderDifference::Kind::KindDiffers: return "kind";
    }
    return "different";
}

Result<FolderComparison> compareFolders(Operator &a, std::string_view rootA, Operator &b, std::string_view rootB,
                                        const FolderCompareOptions &options, const std::stop_token &stop)
{
    std::atomic<std::uint64_t> found{0};
    Walked walkedA, walkedB;
    {
        std::jthread other([&] { walkSide(b, rootB, options, stop, found, walkedB); });
        walkSide(a, rootA, options, stop, found, walkedA);
    }
    if (!walkedA.summary)
        return std::move(walkedA.summary).error();
    if (!walkedB.summary)
        return std::move(walkedB.summary).error();
    if (stop.stop_requested())
        return Error(ErrorKind::Cancelled, "stopped while comparing").setOperation("compare");

    FolderComparison out;
    out.errorsA = std::move(walkedA.summary->errors);
    out.errorsB = std::move(walkedB.summary->errors);
    const bool aKeepsTimes = a.capabilities().has(Capability::KeepsModifiedTime);
    const bool bKeepsTimes = b.capabilities().has(Capability::KeepsModifiedTime);
    std::set<std::string, std::less<>> skipped; // folders whose contents are not listed again
    auto differ = [&](const std::string &path, FolderDifference::Kind kind, const FolderDifference::Side &sa,
                      const FolderDifference::Side &sb) {
        out.differences.push_back({path, kind, sa, sb});
    };
    // A file on both sides: by time where sizes differ or both keep times, else alike.
    auto compareFiles = [&](const std::string &path, const FolderDifference::Side &sa,
                            const FolderDifference::Side &sb) -> Status {
        const std::int64_t delta = sa.mtimeNs && sb.mtimeNs ? sa.mtimeNs - sb.mtimeNs : 0;
        const auto byTime = [&] {
            return delta >= kSecond ? FolderDifference::Kind::NewerA
                : delta <= -kSecond ? FolderDifference::Kind::NewerB
                                    : FolderDifference::Kind::Different;
        };
        if (sa.size != sb.size) {
            differ(path, byTime(), sa, sb);
            return {};
        }
        if (options.checksum) {
            ++out.hashed;
            const std::string fullA = std::string(rootA == "/" ? "" : rootA) + "/" + path;
            const std::string fullB = std::string(rootB == "/" ? "" : rootB) + "/" + path;
            auto ha = objectHash(a, fullA, stop);
            if (!ha)
                return std::move(ha).error();
            auto hb = objectHash(b, fullB, stop);
            if (!hb)
                return std::move(hb).error();
            if (*ha == *hb)
                ++out.same;
            else
                differ(path, byTime(), sa, sb);
            return {};
        }
        // A copy on a storage that stamps its own time (S3: the upload's) is alike when it
        // is the newer one, as sync judges it.
        const bool alike = delta > -kSecond && delta < kSecond;
        const bool stampedLater = (!bKeepsTimes && delta <= 0) || (!aKeepsTimes && delta >= 0);
        if (alike || stampedLater)
            ++out.same;
        else
            differ(path, byTime(), sa, sb);
        return {};
    };

    auto ia = walkedA.tree.begin(), ib = walkedB.tree.begin();
    const FolderDifference::Side none;
    while (ia != walkedA.tree.end() || ib != walkedB.tree.end()) {
        if (stop.stop_requested())
            return Error(ErrorKind::Cancelled, "stopped while comparing").setOperation("compare");
        const int order = ia == walkedA.tree.end() ? 1 : ib == walkedB.tree.end() ? -1 : ia->first.compare(ib->first);
        if (order < 0) {
            out.filesA += ia->second.kind == EntryKind::File;
            if (!below(skipped, ia->first)) {
                differ(ia->first, FolderDifference::Kind::OnlyA, ia->second, none);
                if (ia->second.kind == EntryKind::Directory)
                    skipped.insert(ia->first);
            }
            ++ia;
            continue;
        }
        if (order > 0) {
            out.filesB += ib->second.kind == EntryKind::File;
            if (!below(skipped, ib->first)) {
                differ(ib->first, FolderDifference::Kind::OnlyB, none, ib->second);
                if (ib->second.kind == EntryKind::Directory)
                    skipped.insert(ib->first);
            }
            ++ib;
            continue;
        }
        const auto &[path, sa] = *ia;
        const auto &sb = ib->second;
        out.filesA += sa.kind == EntryKind::File;
        out.filesB += sb.kind == EntryKind::File;
        if (!below(skipped, path)) {
            if (sa.kind != sb.kind) {
                differ(path, FolderDifference::Kind::KindDiffers, sa, sb);
                skipped.insert(path);
            } else if (sa.kind == EntryKind::File) {
                if (auto st = compareFiles(path, sa, sb); !st)
                    return std::move(st).error();
            } else if (sa.kind != EntryKind::Directory) {
                ++out.same; // links and others: there on both sides
            }
        }
        ++ia;
        ++ib;
    }
    return out;
}

} // namespace strata
