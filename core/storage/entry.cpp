#include "core/storage/entry.h"

namespace strata {

std::string_view toString(EntryKind kind)
{
    switch (kind) {
    case EntryKind::File: return "file";
    case EntryKind::Directory: return "dir";
    case EntryKind::Symlink: return "symlink";
    case EntryKind::Other: return "other";
    }
    return "other";
}

} // namespace strata
