#include "tests/behavior/behavior_test.h"

namespace strata {

void BehaviorTest::initTestCase()
{
    m_root = std::make_unique<BehaviorRoot>();
    if (!m_root->ok())
        QFAIL(qPrintable(QStringLiteral("cannot prepare the test root: ") + QString::fromStdString(m_root->problem())));
    qInfo("backend %s, root %s, capabilities %s", m_root->backendName().c_str(), op().display(p("")).c_str(),
          m_root->caps().names().c_str());
}

void BehaviorTest::cleanupTestCase()
{
    m_root.reset();
}

// A backend that is one fixed object (an NBD export) has no names to create, list or
// remove: it runs the image* cases, the others run everything else.
void BehaviorTest::init()
{
    const bool image = QByteArray(QTest::currentTestFunction()).startsWith("image");
    const bool single = m_root->caps().has(Capability::SingleObject);
    if (image && !single)
        QSKIP("only for a backend that is one image (SingleObject)");
    if (!image && single)
        QSKIP("the backend is one fixed-size image: no objects to name or create");
}

void BehaviorTest::roundTrip_data()
{
    QTest::addColumn<qulonglong>("size");
    QTest::newRow("0 B") << 0ull;
    QTest::newRow("1 B") << 1ull;
    QTest::newRow("4 KiB") << 4096ull;
    QTest::newRow("4 MiB + 1") << (4ull << 20) + 1;
}

void BehaviorTest::roundTrip()
{
    NEEDS(Write);
    QFETCH(qulonglong, size);
    const auto path = p("round-trip-" + std::to_string(size));
    const auto data = patternBytes(std::size_t(size), unsigned(size));
    writeFile(path, data);
    auto entry = op().stat(path);
    REQUIRE_OK(entry);
    QCOMPARE(entry->size, std::uint64_t(size));
    QVERIFY(entry->isFile());
    QCOMPARE(entry->name, std::string(baseName(path)));
    QVERIFY(readAll(path) == data);
}

void BehaviorTest::rangedReads()
{
    NEEDS(RangedRead);
    const auto path = p("ranged");
    const auto data = patternBytes(100000, 7);
    writeFile(path, data);
    std::vector<std::byte> buf(1000);
    struct Case {
        std::uint64_t offset;
        std::size_t want;
        std::size_t expect;
    };
    for (Case c : {Case{0, 1000, 1000}, Case{50000, 1000, 1000}, Case{99500, 1000, 500}, Case{100000, 1000, 0},
                   Case{250000, 1000, 0}, Case{12345, 1, 1}}) {
        auto n = op().read(path, c.offset, std::span(buf).first(c.want));
        REQUIRE_OK(n);
        QCOMPARE(*n, c.expect);
        QVERIFY(std::equal(buf.begin(), buf.begin() + std::ptrdiff_t(*n),
                           data.begin() + std::ptrdiff_t(std::min<std::uint64_t>(c.offset, data.size()))));
    }
}

// Reads in order with other requests between them (a stat, a listing, a write): a
// backend that keeps reads in flight between calls (SFTP) takes their answers in before
// anything else goes out on that connection, and the next read goes on from there.
void BehaviorTest::readsInOrderBetweenOtherRequests()
{
    NEEDS(RangedRead);
    const auto path = p("in-order");
    const auto data = patternBytes(6u << 20, 12);
    writeFile(path, data);
    std::vector<std::byte> buf(1u << 20);
    auto readAt = [&](std::uint64_t offset) {
        auto n = op().read(path, offset, buf);
        REQUIRE_OK(n);
        QCOMPARE(*n, buf.size());
        QVERIFY(std::equal(buf.begin(), buf.end(), data.begin() + std::ptrdiff_t(offset)));
    };
    readAt(0);
    readAt(1u << 20); // the second in order: a streaming backend now reads ahead
    REQUIRE_OK(op().stat(path));
    REQUIRE_OK(op().list(parentPath(path)));
    writeFile(p("in-order-other"), patternBytes(1000, 13));
    readAt(2u << 20);
    readAt(3u << 20);
    REQUIRE_OK(op().stat(p("in-order-other")));
    readAt(5u << 20); // elsewhere
    REQUIRE_OK(op().remove(p("in-order-other")));
    readAt(1u << 20);
}

// An opened reader as a copy uses it: in order in buffers (a streaming backend keeps one
// download going), then elsewhere (it starts again there), past the end, and errors for
// a missing file or a folder by the first read at the latest.
void BehaviorTest::readerReads()
{
    NEEDS(Write);
    const auto path = p("reader");
    const auto data = patternBytes((3u << 20) + 4321, 11);
    writeFile(path, data);
    auto entry = op().stat(path);
    REQUIRE_OK(entry);
    auto reader = op().openReader(path, *entry);
    REQUIRE_OK(reader);
    std::vector<std::byte> buf(256u << 10), got;
    for (;;) {
        auto n = (*reader)->read(got.size(), buf);
        REQUIRE_OK(n);
        if (*n == 0)
            break;
        got.insert(got.end(), buf.begin(), buf.begin() + std::ptrdiff_t(*n));
        QVERIFY(got.size() <= data.size());
    }
    QVERIFY(got == data);
    if (m_root->caps().has(Capability::RangedRead)) {
        for (std::uint64_t offset : {std::uint64_t(12345), std::uint64_t(1u << 20), std::uint64_t(500)}) {
            auto n = (*reader)->read(offset, std::span(buf).first(1000));
            REQUIRE_OK(n);
            QCOMPARE(*n, std::size_t(1000));
            QVERIFY(std::equal(buf.begin(), buf.begin() + 1000, data.begin() + std::ptrdiff_t(offset)));
        }
        auto n = (*reader)->read(data.size() - 10, buf);
        REQUIRE_OK(n);
        QCOMPARE(*n, std::size_t(10));
        n = (*reader)->read(data.size() + 10, buf);
        REQUIRE_OK(n);
        QCOMPARE(*n, std::size_t(0));
    }
    reader->reset();
    // The connections the reader used serve plain requests again.
    QVERIFY(readAll(path) == data);

    Entry missing;
    missing.name = "missing";
    missing.kind = EntryKind::File;
    missing.size = 10;
    auto gone = op().openReader(p("missing"), missing);
    if (gone)
        REQUIRE_KIND((*gone)->read(0, buf), ErrorKind::NotFound);
    else
        QCOMPARE(gone.error().kind(), ErrorKind::NotFound);
    if (!m_root->caps().has(Capability::CreateDir))
        return;
    const auto dir = p("reader-dir");
    REQUIRE_OK(op().createDir(dir));
    auto listed = op().stat(dir);
    REQUIRE_OK(listed);
    auto folder = op().openReader(dir, *listed);
    if (folder)
        REQUIRE_KIND((*folder)->read(0, buf), ErrorKind::IsDirectory);
    else
        QCOMPARE(folder.error().kind(), ErrorKind::IsDirectory);
}

// A read of a stated version: whole and in ranges while it stands; Corrupt, never bytes
// of the new version, once the object was replaced.
void BehaviorTest::versionedReads()
{
    NEEDS(VersionedRead);
    const auto path = p("versioned");
    const auto first = patternBytes(30000, 3);
    writeFile(path, first);
    auto entry = op().stat(path);
    REQUIRE_OK(entry);
    QVERIFY(!entry->etag.empty());
    const ObjectVersion version{entry->etag, entry->size};
    std::vector<std::byte> whole(first.size());
    auto n = op().readVersion(path, 0, whole, version);
    REQUIRE_OK(n);
    QCOMPARE(*n, first.size());
    QVERIFY(whole == first);
    std::vector<std::byte> part(1000);
    n = op().readVersion(path, 20000, part, version);
    REQUIRE_OK(n);
    QCOMPARE(*n, part.size());
    QVERIFY(std::equal(part.begin(), part.end(), first.begin() + 20000));

    writeFile(path, patternBytes(30000, 4)); // same size, other bytes: another version
    REQUIRE_KIND(op().readVersion(path, 0, whole, version), ErrorKind::Corrupt);
    REQUIRE_KIND(op().readVersion(path, 20000, part, version), ErrorKind::Corrupt);
    writeFile(path, patternBytes(50000, 5)); // grown: a whole read of the old size must not pass
    REQUIRE_KIND(op().readVersion(path, 0, whole, version), ErrorKind::Corrupt);
}

void BehaviorTest::overwrite()
{
    NEEDS(Write);
    const auto path = p("overwrite");
    writeFile(path, patternBytes(5000, 1));
    const auto second = patternBytes(1234, 2);
    writeFile(path, second);
    QVERIFY(readAll(path) == second);
    QCOMPARE(op().stat(path)->size, std::uint64_t(1234));
}

void BehaviorTest::noClobber()
{
    NEEDS(Write);
    const auto path = p("no-clobber");
    writeFile(path, asBytes("first"));
    WriteOptions options;
    options.overwrite = false;
    auto writer = op().write(path, options);
    Status st = writer.ok() ? Status{} : Status(writer.error());
    if (writer) {
        if (auto w = (*writer)->write(asBytes("second")); !w)
            st = w;
        else
            st = (*writer)->commit();
    }
    REQUIRE_KIND(st, ErrorKind::AlreadyExists);
    auto data = readAll(path);
    QCOMPARE(std::string(reinterpret_cast<const char *>(data.data()), data.size()), std::string("first"));

    // `fresh` lets a backend skip its early look, never the last one: the commit refuses
    // and leaves nothing of its own beside the file (e.g. FTP: the look rides in the
    // bytes' request, before the rename).
    const auto before = listNames(std::string(parentPath(path)), 1000);
    options.fresh = true;
    writer = op().write(path, options);
    st = writer.ok() ? Status{} : Status(writer.error());
    if (writer) {
        if (auto w = (*writer)->write(asBytes("third")); !w)
            st = w;
        else
            st = (*writer)->commit();
    }
    REQUIRE_KIND(st, ErrorKind::AlreadyExists);
    data = readAll(path);
    QCOMPARE(std::string(reinterpret_cast<const char *>(data.data()), data.size()), std::string("first"));
    QCOMPARE(listNames(std::string(parentPath(path)), 1000), before);
}

void BehaviorTest::statFileAndDir()
{
    NEEDS(CreateDir);
    const auto dir = p("stat-dir");
    REQUIRE_OK(op().createDir(dir));
    writeFile(dir + "/file.txt", asBytes("hello"));
    auto d = op().stat(dir);
    REQUIRE_OK(d);
    QVERIFY(d->isDir());
    QCOMPARE(d->name, std::string("stat-dir"));
    auto f = op().stat(dir + "/file.txt");
    REQUIRE_OK(f);
    QVERIFY(f->isFile());
    QCOMPARE(f->size, std::uint64_t(5));
    QCOMPARE(f->path, dir + "/file.txt");
    QVERIFY(f->mtimeNs.has_value());
}

void BehaviorTest::listEmptyDir()
{
    NEEDS(CreateDir);
    const auto dir = p("empty");
    REQUIRE_OK(op().createDir(dir));
    auto page = op().list(dir);
    REQUIRE_OK(page);
    QVERIFY(page->entries.empty());
    QVERIFY(page->nextPageToken.empty());
}

void BehaviorTest::listNested()
{
    NEEDS(CreateDir);
    const auto dir = p("nested");
    REQUIRE_OK(op().createDir(dir + "/a/b/c", true));
    writeFile(dir + "/top.txt", asBytes("t"));
    writeFile(dir + "/a/mid.txt", asBytes("m"));
    writeFile(dir + "/a/b/c/deep.txt", asBytes("d"));
    auto top = op().listAll(dir);
    REQUIRE_OK(top);
    std::map<std::string, EntryKind> kinds;
    for (const auto &e : *top)
        kinds[e.name] = e.kind;
    QCOMPARE(kinds.size(), std::size_t(2));
    QVERIFY(kinds["a"] == EntryKind::Directory);
    QVERIFY(kinds["top.txt"] == EntryKind::File);
    auto inner = op().listAll(dir + "/a/b");
    REQUIRE_OK(inner);
    QCOMPARE(inner->size(), std::size_t(1));
    QCOMPARE(inner->front().name, std::string("c"));
    QCOMPARE(inner->front().path, dir + "/a/b/c");
    QVERIFY(inner->front().isDir());
}

void BehaviorTest::listTenThousandPaged()
{
    NEEDS(Write);
    const auto dir = p("many");
    if (m_root->caps().has(Capability::CreateDir))
        REQUIRE_OK(op().createDir(dir));
        // Under a sanitizer, 2 000: the same pages and paths are checked for memory errors,
        // and the 10 000 entries of the ci tree cost a sanitized FTP run minutes (writing
        // them and removing them again).
#ifdef STRATA_SANITIZED
    constexpr int kEntries = 2000;
#else
    constexpr int kEntries = 10000;
#endif
    std::set<std::string> expected;
    for (int i = 0; i < kEntries; ++i)
        expected.insert("entry-" + std::to_string(i));
    // Written from several threads: remote stores answer each write in a round trip.
    std::atomic<int> next{0}, failed{0};
    std::vector<std::thread> writers;
    for (int t = 0; t < 16; ++t)
        writers.emplace_back([&] {
            for (int i = next++; i < kEntries; i = next++) {
                const std::string name = "entry-" + std::to_string(i);
                if (!op().writeAll(dir + "/" + name, asBytes(name)))
                    ++failed;
            }
        });
    for (auto &w : writers)
        w.join();
    QCOMPARE(failed.load(), 0);
    for (std::size_t pageSize : {std::size_t(1000), std::size_t(333)}) {
        std::size_t pages = 0, total = 0;
        auto names = listNames(dir, pageSize, &pages, &total);
        QCOMPARE(total, std::size_t(kEntries)); // nothing repeated...
        QVERIFY(names == expected);             // ...nothing lost
        QVERIFY2(pages >= kEntries / pageSize, "the listing was not paged");
    }
}

void BehaviorTest::specialNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("spaces") << QStringLiteral("with some spaces.txt");
    QTest::newRow("unicode") << QStringLiteral("données-日本語-ü.txt");
    QTest::newRow("percent") << QStringLiteral("100% done %41.txt");
    QTest::newRow("hash") << QStringLiteral("issue #42.txt");
    QTest::newRow("question") << QStringLiteral("what?.txt");
    QTest::newRow("plus-and-amp") << QStringLiteral("a+b&c=d.txt");
}

void BehaviorTest::specialNames()
{
    NEEDS(Write);
    QFETCH(QString, name);
    const std::string leaf = name.toStdString();
    const auto path = p(leaf);
    writeFile(path, asBytes(leaf));
    auto entry = op().stat(path);
    REQUIRE_OK(entry);
    QCOMPARE(entry->name, leaf);
    // The printed URI parses back to the same object.
    const std::string printed = op().uriFor(path).toString();
    auto again = m_root->registry().open(printed);
    REQUIRE_OK(again);
    QCOMPARE(again->path, path);
    auto viaUri = again->op->stat(again->path);
    REQUIRE_OK(viaUri);
    QCOMPARE(viaUri->size, std::uint64_t(leaf.size()));
    bool listed = false;
    auto all = op().listAll(std::string(parentPath(path)));
    REQUIRE_OK(all);
    for (const auto &e : *all)
        listed = listed || e.name == leaf;
    QVERIFY2(listed, "the name is not listed as written");
}

void BehaviorTest::errorKinds()
{
    REQUIRE_KIND(op().stat(p("missing")), ErrorKind::NotFound);
    std::vector<std::byte> buf(10);
    REQUIRE_KIND(op().read(p("missing"), 0, buf), ErrorKind::NotFound);
    if (!m_root->caps().has(Capability::CreateDir))
        return;
    const auto dir = p("errors");
    REQUIRE_OK(op().createDir(dir));
    REQUIRE_KIND(op().createDir(dir), ErrorKind::AlreadyExists);
    REQUIRE_KIND(op().read(dir, 0, buf), ErrorKind::IsDirectory);
    if (m_root->caps().has(Capability::RealDirectories)) {
        // Object stores have no parents to miss, and a key may sit beside a same-named prefix.
        REQUIRE_KIND(op().createDir(p("no/such/parent")), ErrorKind::NotFound);
        REQUIRE_KIND(op().writeAll(dir, asBytes("x")), ErrorKind::IsDirectory);
    }
    writeFile(dir + "/file", asBytes("x"));
    REQUIRE_KIND(op().list(dir + "/file"), ErrorKind::NotDirectory);
    REQUIRE_KIND(op().list(p("missing-dir")), ErrorKind::NotFound);
    // An error names the operation and the object, in one sentence.
    auto e = op().stat(p("missing"));
    QVERIFY(!e.ok());
    const auto msg = e.error().message();
    QVERIFY2(msg.find("stat") != std::string::npos && msg.find("missing") != std::string::npos, msg.c_str());
}

void BehaviorTest::pathEscapeRefused()
{
    REQUIRE_KIND(op().stat("/../../etc/passwd"), ErrorKind::InvalidInput);
    REQUIRE_KIND(op().writeAll("/a/../../escape", asBytes("x")), ErrorKind::InvalidInput);
}

void BehaviorTest::remove()
{
    NEEDS(Remove);
    const auto path = p("to-remove");
    writeFile(path, asBytes("bye"));
    REQUIRE_OK(op().remove(path));
    REQUIRE_KIND(op().stat(path), ErrorKind::NotFound);
    // Removing what is not there succeeds: removal is idempotent.
    REQUIRE_OK(op().remove(path));
    REQUIRE_OK(op().remove(p("never-existed")));
    if (m_root->caps().has(Capability::RealDirectories)) {
        const auto dir = p("full-dir");
        REQUIRE_OK(op().createDir(dir));
        writeFile(dir + "/x", asBytes("x"));
        REQUIRE_KIND(op().remove(dir), ErrorKind::DirectoryNotEmpty);
        REQUIRE_OK(op().removeAll(dir));
        REQUIRE_KIND(op().stat(dir), ErrorKind::NotFound);
    } else {
        // A folder only its keys imply (no marker): removing it all removes the keys
        // and succeeds, though the folder is gone before it can be removed itself.
        writeFile(p("implied/a"), asBytes("a"));
        writeFile(p("implied/sub/b"), asBytes("b"));
        REQUIRE_OK(op().removeAll(p("implied")));
        REQUIRE_KIND(op().stat(p("implied/a")), ErrorKind::NotFound);
        REQUIRE_KIND(op().stat(p("implied")), ErrorKind::NotFound);
    }
}

void BehaviorTest::rename()
{
    NEEDS(Rename);
    const auto from = p("rename-from");
    const auto to = p("rename-to");
    const auto data = patternBytes(3000, 3);
    writeFile(from, data);
    writeFile(to, asBytes("old content"));
    // Nothing is replaced unless asked: both stay as they were.
    REQUIRE_KIND(op().rename(from, to), ErrorKind::AlreadyExists);
    QVERIFY(readAll(from) == data);
    QVERIFY(std::ranges::equal(readAll(to), asBytes("old content")));
    REQUIRE_OK(op().rename(from, to, true));
    REQUIRE_KIND(op().stat(from), ErrorKind::NotFound);
    QVERIFY(readAll(to) == data);
    REQUIRE_KIND(op().rename(p("rename-missing"), p("x")), ErrorKind::NotFound);
    if (m_root->caps().has(Capability::RealDirectories)) {
        REQUIRE_OK(op().createDir(p("rename-dir")));
        writeFile(p("rename-dir/inner"), asBytes("i"));
        REQUIRE_OK(op().rename(p("rename-dir"), p("renamed-dir")));
        QCOMPARE(readAll(p("renamed-dir/inner")).size(), std::size_t(1));
        REQUIRE_KIND(op().rename(p("renamed-dir"), p("renamed-dir/sub")), ErrorKind::InvalidInput);
    }
}

void BehaviorTest::copy()
{
    NEEDS(Copy);
    const auto from = p("copy-from");
    const auto to = p("copy-to");
    const auto data = patternBytes(70000, 4);
    writeFile(from, data);
    REQUIRE_OK(op().copy(from, to));
    QVERIFY(readAll(to) == data);
    writeFile(from, asBytes("changed"));
    QVERIFY2(readAll(to) == data, "changing the source changed the copy");
    REQUIRE_KIND(op().copy(p("copy-missing"), p("y")), ErrorKind::NotFound);
}

void BehaviorTest::abortLeavesNothing()
{
    NEEDS(Write);
    const auto dir = p("abort");
    if (m_root->caps().has(Capability::CreateDir))
        REQUIRE_OK(op().createDir(dir));
    const auto path = dir + "/partial";
    {
        auto writer = op().write(path);
        REQUIRE_OK(writer);
        REQUIRE_OK((*writer)->write(patternBytes(100000, 5)));
        // Nothing is visible before commit.
        REQUIRE_KIND(op().stat(path), ErrorKind::NotFound);
        (*writer)->abort();
    }
    REQUIRE_KIND(op().stat(path), ErrorKind::NotFound);
    {
        auto writer = op().write(path);
        REQUIRE_OK(writer);
        REQUIRE_OK((*writer)->write(patternBytes(1000, 6)));
        // Destroyed without commit: same as abort.
    }
    REQUIRE_KIND(op().stat(path), ErrorKind::NotFound);
    if (m_root->caps().has(Capability::CreateDir)) {
        auto all = op().listAll(dir);
        REQUIRE_OK(all);
        QVERIFY2(all->empty(), "an aborted write left something behind (a temporary file?)");
    }
    // An aborted overwrite keeps the old object.
    writeFile(path, asBytes("keep me"));
    {
        auto writer = op().write(path);
        REQUIRE_OK(writer);
        REQUIRE_OK((*writer)->write(asBytes("replacement")));
        (*writer)->abort();
    }
    QCOMPARE(readAll(path).size(), std::size_t(7));
}

void BehaviorTest::sparseExtents()
{
    NEEDS(Extents);
    NEEDS(PositionalWrite);
    const auto path = p("sparse.img");
    const std::uint64_t mib = 1 << 20;
    const auto head = patternBytes(mib, 8);
    const auto tail = patternBytes(mib, 9);
    {
        auto writer = op().write(path);
        REQUIRE_OK(writer);
        REQUIRE_OK((*writer)->writeAt(0, head));
        REQUIRE_OK((*writer)->writeAt(9 * mib, tail));
        REQUIRE_OK((*writer)->setLength(12 * mib));
        REQUIRE_OK((*writer)->commit());
    }
    QCOMPARE(op().stat(path)->size, 12 * mib);
    auto map = op().extents(path);
    REQUIRE_OK(map);
    QVERIFY(!map->empty());
    std::uint64_t pos = 0;
    for (const auto &e : *map) {
        QCOMPARE(e.offset, pos); // contiguous, sorted, no overlap
        QVERIFY(e.length > 0);
        pos = e.end();
    }
    QCOMPARE(pos, 12 * mib);
    auto kindAt = [&](std::uint64_t off) {
        for (const auto &e : *map)
            if (off >= e.offset && off < e.end())
                return e.kind;
        return ExtentKind::Data;
    };
    QVERIFY(kindAt(0) == ExtentKind::Data);
    QVERIFY(kindAt(9 * mib + 10) == ExtentKind::Data);
    QVERIFY2(kindAt(4 * mib) != ExtentKind::Data, "the gap is reported as data");
    QVERIFY2(kindAt(11 * mib) != ExtentKind::Data, "the tail past the last write is reported as data");
    auto all = readAll(path);
    QCOMPARE(all.size(), std::size_t(12 * mib));
    QVERIFY(std::equal(head.begin(), head.end(), all.begin()));
    QVERIFY(std::all_of(all.begin() + std::ptrdiff_t(mib), all.begin() + std::ptrdiff_t(9 * mib),
                        [](std::byte b) { return b == std::byte{0}; }));
    QVERIFY(std::equal(tail.begin(), tail.end(), all.begin() + std::ptrdiff_t(9 * mib)));
}

void BehaviorTest::manyReadsInFlight()
{
    NEEDS(RangedRead);
    const auto path = p("async");
    const auto data = patternBytes(1 << 20, 10);
    writeFile(path, data);
    constexpr int count = 256;
    std::vector<std::vector<std::byte>> buffers(count, std::vector<std::byte>(4096));
    std::atomic<int> good{0};
    inParallel(8, count, [&](std::size_t i) {
        const std::uint64_t offset = std::uint64_t(i) * 4096;
        auto n = op().read(path, offset, buffers[i]);
        if (n && *n == 4096 && std::equal(buffers[i].begin(), buffers[i].end(), data.begin() + std::ptrdiff_t(offset)))
            good.fetch_add(1);
    });
    QCOMPARE(good.load(), count);
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::BehaviorTest)
