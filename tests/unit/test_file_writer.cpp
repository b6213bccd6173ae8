// The file writer beside what the backend tests cover (test_file_backend.cpp): a big file is
// written behind and leaves the page cache as it goes.
#include "tests/unit/unit_checks.h"

#include "backends/fs/file_backend.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace strata {

namespace {

constexpr std::size_t kMiB = 1u << 20;

// The share of the first `length` bytes of the file at `path` that is in the page cache.
double residentShare(const std::string &path, std::size_t length)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    void *map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED)
        return -1;
    const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((length + page - 1) / page);
    const int rc = ::mincore(map, length, in.data());
    ::munmap(map, length);
    if (rc != 0)
        return -1;
    return double(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })) / double(in.size());
}

} // namespace

class TestFileWriter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A file of 64 MiB and more is written behind and leaves the page cache as it goes (its
    // start is gone from memory by the end); a smaller one stays cached. Either reads back whole.
    void aBigFileLeavesThePageCache()
    {
        // Not in a tmpfs (where pages are the file): /var/tmp is on a disk where /tmp may not be.
        QTemporaryDir onDisk(QStringLiteral("/var/tmp/strata-test-XXXXXX"));
        QVERIFY(onDisk.isValid());
        struct statfs fsInfo {};
        QCOMPARE(::statfs(onDisk.path().toLocal8Bit().constData(), &fsInfo), 0);
        if (fsInfo.f_type == 0x01021994 /* TMPFS_MAGIC */)
            QSKIP("/var/tmp is a tmpfs: its pages cannot leave the cache");
        auto fs = FileBackend::open(onDisk.path().toStdString());
        REQUIRE_OK(fs);
        auto chunk = patternBytes(4 * kMiB, 7);
        auto writeFile = [&](const std::string &name, int chunks) {
            WriteOptions options;
            options.sizeHint = std::uint64_t(chunks) * chunk.size();
            auto writer = (*fs)->write(name, options);
            REQUIRE_OK(writer);
            for (int i = 0; i < chunks; ++i) {
                std::memcpy(chunk.data(), &i, sizeof i); // every chunk differs
                REQUIRE_OK((*writer)->writeAt(std::uint64_t(i) * chunk.size(), chunk));
            }
            REQUIRE_OK((*writer)->commit());
        };
        writeFile("/big.img", 40); // 160 MiB
        const std::string big = onDisk.path().toStdString() + "/big.img";
        const double bigStart = residentShare(big, 64 * kMiB);
        QVERIFY2(bigStart >= 0 && bigStart <= 0.25, std::to_string(bigStart).c_str());
        writeFile("/small.img", 4); // 16 MiB
        const double small = residentShare(onDisk.path().toStdString() + "/small.img", 16 * kMiB);
        QVERIFY2(small >= 0.99, std::to_string(small).c_str());
        std::vector<std::byte> back(chunk.size());
        for (int i : {0, 17, 39}) {
            auto n = (*fs)->read("/big.img", std::uint64_t(i) * chunk.size(), back);
            REQUIRE_OK(n);
            QCOMPARE(*n, chunk.size());
            std::memcpy(chunk.data(), &i, sizeof i);
            QVERIFY2(back == chunk, ("chunk " + std::to_string(i) + " differs").c_str());
        }
    }
};

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestFileWriter)
#include "test_file_writer.moc"
