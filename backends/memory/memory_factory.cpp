#include "backends/memory/memory_factory.h"

#include "backends/memory/memory_backend.h"
#include "core/storage/path.h"

namespace strata {

MemoryFactory::MemoryFactory() = default;

std::shared_ptr<MemoryBackend> MemoryFactory::store(const std::string &name)
{
    std::lock_guard lock(m_mutex);
    auto &slot = m_stores[name];
    if (!slot) {
        slot = std::make_shared<MemoryBackend>(name);
        // Seeded on first use, not up front: a command that never opens the demo store
        // (an image copy timed against nbdcopy) does not pay for 64 MiB of sample image.
        if (name == "demo")
            seedDemoStore(*slot);
    }
    return slot;
}

BackendDescription MemoryFactory::describe() const
{
    return {"Memory store",
            {"memory://STORE/PATH"},
            "An in-memory store, gone when strata ends; memory://demo/ starts with sample files.",
            {},
            {{"store", "&Store:", FormField::Kind::Text, "scratch", {}}}};
}

Result<FormConnection> MemoryFactory::fromForm(const FormAnswers &answers) const
{
    const std::string store = form::answer(answers, "store");
    if (!isValidName(store))
        return Error(ErrorKind::InvalidInput, "The store name may use letters, digits, '.', '_' and '-'");
    Uri uri;
    uri.setScheme("memory");
    uri.setHost(store);
    uri.setPath("/");
    return FormConnection{uri, {}, {}};
}

FormAnswers MemoryFactory::toForm(const Uri &uri) const
{
    return {{"store", uri.host()}};
}

Result<Target> MemoryFactory::locate(const Uri &uri)
{
    if (!uri.hasAuthority() || uri.host().empty())
        return Error(ErrorKind::InvalidInput, "name the store, as in memory://demo/ or memory://scratch/dir");
    if (uri.port() || uri.hasUserInfo())
        return Error(ErrorKind::InvalidInput, "a memory store takes a name only, no port or user");
    if (!isValidName(uri.host()))
        return Error(ErrorKind::InvalidInput, "the store name is not valid");
    return Target{"memory://" + uri.host(), uri.path()};
}

Result<std::shared_ptr<Backend>> MemoryFactory::create(const Uri &uri, const Target &, const ConnectionSecret &)
{
    return std::shared_ptr<Backend>(store(uri.host()));
}

namespace {

// A 32×32 PNG of coloured strata.
constexpr unsigned char kLogoPng[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
    0x00, 0x20, 0x00, 0x00, 0x00, 0x20, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfc, 0x18, 0xed, 0xa3, 0x00, 0x00, 0x00,
    0x9e, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0xb5, 0x93, 0xb1, 0x0d, 0x80, 0x50, 0x08, 0x44, 0x6f, 0x1f, 0x57,
    0xd0, 0x11, 0xec, 0x1d, 0xc2, 0x4d, 0xdc, 0xc0, 0xda, 0x01, 0x9c, 0xc1, 0x49, 0xdc, 0xe4, 0x2b, 0x09, 0x0d,
    0x81, 0x92, 0x97, 0x50, 0x5d, 0xf1, 0x2e, 0xc0, 0x9d, 0xc6, 0x18, 0xd3, 0x7e, 0xe7, 0xe9, 0xd2, 0x85, 0xd2,
    0x7f, 0x5d, 0x28, 0xbd, 0xd8, 0xa0, 0xfd, 0x62, 0x42, 0xe9, 0xc1, 0x00, 0xfa, 0xb6, 0x50, 0xba, 0x1b, 0xa0,
    0x49, 0xd5, 0xaf, 0x2e, 0xe7, 0x91, 0xa7, 0x4b, 0x17, 0x4a, 0xb7, 0x1e, 0xa0, 0xf4, 0x62, 0x83, 0xf6, 0x8b,
    0x09, 0xa5, 0x07, 0x03, 0xe8, 0xdb, 0x42, 0xe9, 0x6e, 0x80, 0x26, 0xd5, 0x7a, 0xf0, 0x5e, 0x5b, 0x9e, 0x2e,
    0x5d, 0x28, 0xdd, 0x7a, 0x80, 0xd2, 0x8b, 0x0d, 0xda, 0x2f, 0x26, 0x94, 0x1e, 0x0c, 0xa0, 0x6f, 0x0b, 0xa5,
    0xbb, 0x01, 0x9a, 0x54, 0xeb, 0xc1, 0xb3, 0xce, 0x79, 0xba, 0x74, 0xa1, 0x74, 0xeb, 0x01, 0x4a, 0x2f, 0x36,
    0x68, 0xbf, 0x98, 0x50, 0x7a, 0x30, 0x80, 0xbe, 0x2d, 0x94, 0xee, 0x06, 0x68, 0x52, 0x3f, 0x1e, 0xdb, 0x94,
    0xdb, 0x08, 0x4e, 0xaa, 0x3b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

std::span<const std::byte> bytes(std::string_view text)
{
    return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

void put(MemoryBackend &store, std::string_view path, std::span<const std::byte> data)
{
    auto writer = store.write(path, {});
    if (writer && (*writer)->write(data))
        (void)(*writer)->commit();
}

} // namespace

void seedDemoStore(MemoryBackend &store)
{
    for (auto dir : {"/docs", "/images", "/data", "/data/logs", "/empty folder"})
        (void)store.createDir(dir);

    put(store, "/README.txt",
        bytes("Welcome to Strata's demo store.\n\n"
              "Everything here lives in memory: browse it, copy files to and from\n"
              "your disk, rename and delete freely. Nothing here is saved on exit.\n"));
    put(store, "/docs/getting-started.md",
        bytes("# Getting started\n\n"
              "1. Open a connection (Ctrl+N): a folder, an S3 bucket, a WebDAV share or an NBD image.\n"
              "2. Drag files between the two panes to copy them.\n"
              "3. Run a benchmark on any connection to see how fast it really is.\n"));
    put(store, "/docs/notes – unicode & spaces.txt",
        bytes("Names may hold spaces, accents (é, ü) and symbols (#, %, ?).\n"));
    put(store, "/images/strata.png", {reinterpret_cast<const std::byte *>(kLogoPng), sizeof kLogoPng});
    put(store, "/data/measurements.csv",
        bytes("size_bytes,write_mb_s,read_mb_s\n"
              "4096,180.5,410.2\n"
              "262144,950.1,2210.7\n"
              "4194304,1420.9,3105.3\n"
              "16777216,1510.4,3320.8\n"));
    std::string log;
    for (int i = 0; i < 200; ++i)
        log += "2026-11-30T12:00:" + std::to_string(10 + i % 50) + "Z request " + std::to_string(i) + " ok\n";
    put(store, "/data/logs/server.log", bytes(log));

    // A 64 MiB disk image with data only at its start, middle and end: the rest are holes.
    if (auto writer = store.write("/disk.img", {}); writer) {
        std::vector<std::byte> block(MemoryBackend::ChunkSize, std::byte{0x5a});
        const std::uint64_t size = 64ull << 20;
        bool ok = (*writer)->writeAt(0, block) && (*writer)->writeAt(size / 2, block)
            && (*writer)->writeAt(size - block.size(), block) && (*writer)->setLength(size);
        if (ok)
            (void)(*writer)->commit();
    }
}

} // namespace strata
