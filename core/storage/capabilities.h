#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

enum class Capability : std::uint32_t {
    Stat = 1u << 0,
    List = 1u << 1,
    Read = 1u << 2,
    Write = 1u << 3,
    Remove = 1u << 4,
    CreateDir = 1u << 5,
    Rename = 1u << 6,
    Copy = 1u << 7,               // server-side copy within the backend
    Extents = 1u << 8,            // data / zero / hole map of an object
    RangedRead = 1u << 9,         // read at any offset without reading what precedes it
    PositionalWrite = 1u << 10,   // Writer::writeAt, parts written in any order
    ListRecursive = 1u << 11,     // one flat listing of a whole subtree
    Symlinks = 1u << 12,          // reports symlinks
    RealDirectories = 1u << 13,   // directories exist on their own (not only as key prefixes)
    KeepsModifiedTime = 1u << 14, // a writer can give the object its source's modification time
    VersionedRead = 1u << 15,     // readVersion() fails with Corrupt when the object's version changed
    SingleObject = 1u << 16,      // the backend is one object at its root, of fixed size (an NBD export)
    Queue = 1u << 17,             // readQueue/writeQueue keep several requests in flight from one thread
    Versions = 1u << 18,          // listVersions: older versions and delete markers an object store keeps
    Uploads = 1u << 19,           // listUploads: multipart uploads begun and never completed
    Details = 1u << 20,           // details / changeDetails: content type, metadata, tags
};

std::string_view toString(Capability cap);

// What a backend can do. An operation outside it fails with Unsupported, before any I/O.
class Capabilities {
public:
    constexpr Capabilities() = default;
    constexpr Capabilities(std::initializer_list<Capability> caps)
    {
        for (auto c : caps)
            m_bits |= static_cast<std::uint32_t>(c);
    }

    constexpr bool has(Capability cap) const { return m_bits & static_cast<std::uint32_t>(cap); }
    constexpr Capabilities &add(Capability cap)
    {
        m_bits |= static_cast<std::uint32_t>(cap);
        return *this;
    }
    constexpr Capabilities &remove(Capability cap)
    {
        m_bits &= ~static_cast<std::uint32_t>(cap);
        return *this;
    }
    constexpr std::uint32_t bits() const { return m_bits; }
    // Comma-separated names, for `strata stat --json` and logs.
    std::string names() const;

    constexpr bool operator==(const Capabilities &) const = default;

private:
    std::uint32_t m_bits = 0;
};

} // namespace strata
