// FTP listings as servers send them: MLSD/MLST facts (Pure-FTPd, vsftpd, ProFTPD), the Unix
// `ls -l` form of LIST, the DOS/IIS form, and names that must stay data.
#include "tests/unit/unit_checks.h"

#include "backends/ftp/ftp_listing.h"

#include <QTest>

namespace strata::ftp {

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// 2026-12-03 22:29:50 UTC.
constexpr std::int64_t kWhen = 1796336990;

} // namespace

class TestFtpListing : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mlsdFile()
    {
        auto l = parseMlsxLine("type=file;size=6;modify=20261203222950;UNIX.mode=0644;UNIX.uid=65534;"
                               "UNIX.gid=65534;unique=fe00ga8a0bb; h.txt\r\n");
        QVERIFY(l);
        QCOMPARE(l->name, std::string("h.txt"));
        QVERIFY(l->entry.kind == EntryKind::File);
        QCOMPARE(l->entry.size, std::uint64_t(6));
        QCOMPARE(l->entry.mtimeNs.value_or(0), kWhen * kSecond);
        QCOMPARE(l->entry.mode.value_or(0), std::uint32_t(0644));
        QVERIFY(!l->self);
    }

    void mlsdFolderSelfAndParent()
    {
        auto dir = parseMlsxLine("type=dir;sizd=4096;modify=20261203222958;UNIX.mode=0755; upload");
        QVERIFY(dir);
        QVERIFY(dir->entry.kind == EntryKind::Directory);
        QCOMPARE(dir->entry.size, std::uint64_t(0)); // sizd is the folder's blocks
        QVERIFY(!dir->self);
        QVERIFY(parseMlsxLine("type=cdir;sizd=4096;modify=20261203222950; .")->self);
        QVERIFY(parseMlsxLine("type=pdir;sizd=4096;modify=20261203222945; ..")->self);
        // ProFTPD names cdir with the folder's full path: still the folder itself.
        QVERIFY(parseMlsxLine("type=cdir;modify=20261203222950; /upload")->self);
    }

    void mlsdNamesAreData()
    {
        // Blanks inside and at the start of a name are the name's; so are a semicolon and '='.
        QCOMPARE(parseMlsxLine("type=file;size=1; two  blanks ")->name, std::string("two  blanks "));
        QCOMPARE(parseMlsxLine("type=file;size=1;  leading")->name, std::string(" leading"));
        QCOMPARE(parseMlsxLine("type=file;size=1; a;b=c d")->name, std::string("a;b=c d"));
        // Names that are no path come back as sent: the caller skips and reports them.
        QCOMPARE(parseMlsxLine("type=file;size=1; ../../etc/passwd")->name, std::string("../../etc/passwd"));
        QCOMPARE(parseMlsxLine("type=file;size=1; a/b")->name, std::string("a/b"));
    }

    void mlsdFactsAnyCaseAndUnknown()
    {
        auto l = parseMlsxLine("Type=FILE;Size=12;Modify=20200101000000.5;x.owner=me;Perm=rw; n");
        QVERIFY(l);
        QVERIFY(l->entry.kind == EntryKind::File);
        QCOMPARE(l->entry.size, std::uint64_t(12));
        QCOMPARE(l->entry.mtimeNs.value_or(0), std::int64_t(1577836800) * kSecond + 500'000'000);
        QVERIFY(!l->entry.mode);
    }

    void mlsdSymlinks()
    {
        auto slink = parseMlsxLine("type=OS.unix=slink:/srv/target;size=7; link");
        QVERIFY(slink->entry.kind == EntryKind::Symlink);
        QCOMPARE(slink->entry.symlinkTarget, std::string("/srv/target"));
        QVERIFY(parseMlsxLine("type=OS.unix=symlink; l2")->entry.kind == EntryKind::Symlink);
        QVERIFY(parseMlsxLine("type=OS.unix=blkdev; sda")->entry.kind == EntryKind::Other);
    }

    void mlstFactLine()
    {
        // MLST's answer carries the facts on a line of its own that starts with a blank.
        auto l = parseMlsxLine(" type=file;size=6;modify=20261203222950; /upload/h.txt");
        QVERIFY(l);
        QCOMPARE(l->name, std::string("/upload/h.txt"));
        QCOMPARE(l->entry.size, std::uint64_t(6));
    }

    void mlsdRefusesWhatIsNot()
    {
        QVERIFY(!parseMlsxLine(""));
        QVERIFY(!parseMlsxLine("226 3 matches total"));
        QVERIFY(!parseMlsxLine("size=6; no-type"));       // no type: not an entry
        QVERIFY(!parseMlsxLine("type=file;size=6;"));     // no name
        QVERIFY(!parseMlsxLine("type=file;size=6 name")); // facts not ended by ';'
        auto badSize = parseMlsxLine("type=file;size=-1;modify=2026; n");
        QVERIFY(badSize);
        QCOMPARE(badSize->entry.size, std::uint64_t(0));
        QVERIFY(!badSize->entry.mtimeNs);
    }

    void listUnix()
    {
        const std::time_t now = kWhen;
        auto f = parseListLine("-rw-r--r--    1 1000     1000            6 Dec 03 22:29 h.txt", now);
        QVERIFY(f);
        QCOMPARE(f->name, std::string("h.txt"));
        QVERIFY(f->entry.kind == EntryKind::File);
        QCOMPARE(f->entry.size, std::uint64_t(6));
        QCOMPARE(f->entry.mode.value_or(0), std::uint32_t(0644));
        QCOMPARE(f->entry.mtimeNs.value_or(0), std::int64_t(kWhen - 50) * kSecond);
        auto d = parseListLine("drwxr-sr-x 2 ftp ftp 4096 Jan  1  2020 old dir", now);
        QVERIFY(d);
        QCOMPARE(d->name, std::string("old dir"));
        QVERIFY(d->entry.kind == EntryKind::Directory);
        QCOMPARE(d->entry.mode.value_or(0), std::uint32_t(02755));
        QCOMPARE(d->entry.mtimeNs.value_or(0), std::int64_t(1577836800) * kSecond);
        // A year-less date after now (plus a day) is last year's.
        auto last = parseListLine("-rw------- 1 u g 1 Dec 25 10:00 x", now);
        QCOMPARE(last->entry.mtimeNs.value_or(0), std::int64_t(1766656800) * kSecond);
    }

    void listUnixNamesAndLinks()
    {
        const std::time_t now = kWhen;
        auto l = parseListLine("lrwxrwxrwx 1 u g 11 Dec  3 22:00 link -> /etc/target", now);
        QVERIFY(l->entry.kind == EntryKind::Symlink);
        QCOMPARE(l->name, std::string("link"));
        QCOMPARE(l->entry.symlinkTarget, std::string("/etc/target"));
        // No group column (some servers): the month is found, not counted.
        auto g = parseListLine("-rw-r--r-- 1 owner 42 Nov 30 09:15 no group", now);
        QVERIFY(g);
        QCOMPARE(g->name, std::string("no group"));
        QCOMPARE(g->entry.size, std::uint64_t(42));
        // A name with leading blanks and an arrow in a file's name stay the name's.
        QCOMPARE(parseListLine("-rw-r--r-- 1 u g 1 Dec  3 22:00  lead", now)->name, std::string(" lead"));
        QCOMPARE(parseListLine("-rw-r--r-- 1 u g 1 Dec  3 22:00 a -> b", now)->name, std::string("a -> b"));
        QVERIFY(parseListLine("drwxr-xr-x 2 u g 4096 Dec  3 22:00 .", now)->self);
        QVERIFY(!parseListLine("total 16", now));
        QVERIFY(!parseListLine("", now));
    }

    void listDos()
    {
        auto d = parseListLine("12-03-26  10:29PM       <DIR>          My Folder", 0);
        QVERIFY(d);
        QVERIFY(d->entry.kind == EntryKind::Directory);
        QCOMPARE(d->name, std::string("My Folder"));
        QCOMPARE(d->entry.mtimeNs.value_or(0), std::int64_t(1796336940) * kSecond);
        auto f = parseListLine("01-02-99  12:05AM                 1234 report.txt", 0);
        QVERIFY(f);
        QCOMPARE(f->entry.size, std::uint64_t(1234));
        QCOMPARE(f->entry.mtimeNs.value_or(0), std::int64_t(915235500) * kSecond);
        QVERIFY(!parseListLine("12-03-26  10:29PM", 0));
    }

    void ftpTimes()
    {
        QCOMPARE(parseFtpTime("19700101000000").value_or(-1), std::int64_t(0));
        QCOMPARE(parseFtpTime("20261203222950").value_or(0), kWhen * kSecond);
        QCOMPARE(parseFtpTime("20261203222950.123").value_or(0), kWhen * kSecond + 123'000'000);
        QVERIFY(!parseFtpTime("2026120322295"));
        QVERIFY(!parseFtpTime("20261303222950")); // month 13
        // Past what nanoseconds since 1970 hold in 64 bits (the year 2262): no time, no overflow.
        QVERIFY(!parseFtpTime("59220202024544"));
        QVERIFY(parseFtpTime("22611231235959"));
        QVERIFY(!parseFtpTime("22620101000000"));
        QVERIFY(!parseFtpTime("20261203222950."));
        QVERIFY(!parseFtpTime("2026120322295x"));
        QCOMPARE(formatFtpTime(kWhen * kSecond + 999'999'999), std::string("20261203222950"));
        QCOMPARE(formatFtpTime(0), std::string("19700101000000"));
    }
};

} // namespace strata::ftp

QTEST_GUILESS_MAIN(strata::ftp::TestFtpListing)
#include "test_ftp_listing.moc"
