// strata diff: two folders compared (core/transfer/folder_compare), as sync would see them.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/io/json.h"
#include "core/io/size_text.h"
#include "core/storage/printable.h"
#include "core/transfer/folder_compare.h"

namespace strata::cli {

namespace {

std::string describe(const FolderDifference::Side &side)
{
    std::string text = side.kind == EntryKind::File ? formatSize(side.size)
        : side.kind == EntryKind::Directory         ? std::string("folder")
                                                    : std::string(toString(side.kind));
    if (side.mtimeNs)
        text += ", " + shortTime(side.mtimeNs);
    return text;
}

json::Value sideJson(const FolderDifference::Side &side)
{
    json::Object out{{"kind", std::string(toString(side.kind))}, {"size", side.size}};
    if (side.mtimeNs)
        out["modified"] = isoTime(side.mtimeNs);
    return out;
}

} // namespace

// Exit status as diff's: 0 alike, 1 different, 2 trouble.
int commandDiff(Context &context, const ArgParser &parser)
{
    FolderCompareOptions options;
    options.checksum = parser.isSet("checksum");
    for (auto &glob : parser.values("exclude")) {
        if (glob.empty())
            return context.usage("--exclude takes a glob, like '*.o' or node_modules");
        options.excludes.push_back(std::move(glob));
    }
    const bool json = parser.isSet("json");
    const auto trouble = [&](const Error &error) {
        context.fail(error);
        return int(Usage); // diff's 2: neither alike nor different
    };
    const auto &arguments = parser.positionalArguments();
    auto a = context.open(arguments[0]);
    if (!a)
        return trouble(a.error());
    auto b = context.open(arguments[1]);
    if (!b)
        return trouble(b.error());
    for (const Location *side : {&*a, &*b}) {
        auto st = side->op->stat(side->path);
        if (!st)
            return trouble(st.error());
        if (!st->isDir())
            return trouble(Error(ErrorKind::InvalidInput, side->display() + " is not a folder"));
    }
    auto cmp = compareFolders(*a->op, a->path, *b->op, b->path, options);
    if (!cmp)
        return trouble(cmp.error());
    const std::string nameA = a->display(), nameB = b->display();
    if (json) {
        json::Array differences;
        for (const auto &d : cmp->differences) {
            json::Object item{{"change", std::string(toString(d.kind))}};
            json::setExact(item, "path", d.path);
            if (d.kind != FolderDifference::Kind::OnlyB)
                item["a"] = sideJson(d.a);
            if (d.kind != FolderDifference::Kind::OnlyA)
                item["b"] = sideJson(d.b);
            differences.push_back(std::move(item));
        }
        json::Array errors;
        for (const auto *list : {&cmp->errorsA, &cmp->errorsB})
            for (const auto &e : *list) {
                json::Object o{{"side", list == &cmp->errorsA ? "a" : "b"}, {"message", e.message}};
                json::setExact(o, "path", e.path);
                errors.push_back(std::move(o));
            }
        writeJson(context.out,
                  json::Object{{"a", nameA},
                               {"b", nameB},
                               {"same", cmp->same},
                               {"filesA", cmp->filesA},
                               {"filesB", cmp->filesB},
                               {"checksum", options.checksum},
                               {"differences", std::move(differences)},
                               {"errors", std::move(errors)}});
    } else {
        std::string text;
        for (const auto &d : cmp->differences) {
            const std::string path = d.path
                + ((d.kind == FolderDifference::Kind::OnlyA ? d.a : d.b).kind == EntryKind::Directory ? "/" : "");
            switch (d.kind) {
            case FolderDifference::Kind::OnlyA: text += "only in A   " + printable(path) + '\n'; break;
            case FolderDifference::Kind::OnlyB: text += "only in B   " + printable(path) + '\n'; break;
            case FolderDifference::Kind::NewerA:
            case FolderDifference::Kind::NewerB:
            case FolderDifference::Kind::Different:
            case FolderDifference::Kind::KindDiffers:
                text += std::string(d.kind == FolderDifference::Kind::NewerA            ? "newer in A  "
                                        : d.kind == FolderDifference::Kind::NewerB      ? "newer in B  "
                                        : d.kind == FolderDifference::Kind::KindDiffers ? "not alike   "
                                                                                        : "different   ")
                    + printable(d.path) + "  (A: " + describe(d.a) + "; B: " + describe(d.b) + ")\n";
                break;
            }
        }
        text += std::to_string(cmp->same) + (cmp->same == 1 ? " file alike" : " files alike")
            + (options.checksum ? " (by content)" : "") + ", " + std::to_string(cmp->differences.size())
            + (cmp->differences.size() == 1 ? " difference" : " differences") + "; A = " + printable(nameA)
            + ", B = " + printable(nameB) + "\n";
        write(context.out, text);
    }
    for (const auto *list : {&cmp->errorsA, &cmp->errorsB})
        for (const auto &e : *list)
            context.warn("cannot read " + (list == &cmp->errorsA ? nameA : nameB) + "/" + e.path + ": " + e.message
                         + " (not compared)");
    if (!cmp->errorsA.empty() || !cmp->errorsB.empty())
        return Usage;
    return cmp->differences.empty() ? Success : Failure;
}

} // namespace strata::cli
