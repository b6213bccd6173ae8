// TransferJournal: what a resumed job trusts of an interrupted one's parts.
#include "tests/unit/unit_checks.h"

#include "core/transfer/transfer_journal.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

namespace strata {

class TestTransferJournal : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void partsSurviveAReload();
    void partsCutOtherwiseAreNotTrusted();
    void aJournalWithoutPartSizesMeansTheSpecs();

private:
    static TransferSpec specWithParts(std::uint64_t partSize)
    {
        TransferSpec spec;
        spec.sources = {"memory://a/big.bin"};
        spec.destination = "memory://b/big.bin";
        spec.options.partSize = partSize;
        return spec;
    }
};

void TestTransferJournal::partsSurviveAReload()
{
    QTemporaryDir dir;
    auto journal = TransferJournal::create(dir.path().toStdString(), "job1", specWithParts(32u << 20));
    QVERIFY(journal.ok());
    (*journal)->beginFile("/big.bin", 64u << 20, 7, 4u << 20);
    (*journal)->markPartDone("/big.bin", 3, "abc");
    const std::string path = TransferJournal::list(dir.path().toStdString()).at(0);
    auto again = TransferJournal::load(path);
    QVERIFY(again.ok());
    const auto parts = (*again)->partsDone("/big.bin", 64u << 20, 7, 4u << 20);
    QCOMPARE(parts.size(), std::size_t(1));
    QCOMPARE(parts.at(3).hash, std::string("abc"));
    // A resumed run cuts the file as the first did.
    QCOMPARE((*again)->partSize("/big.bin", 64u << 20, 7), std::optional<std::uint64_t>(4u << 20));
    QCOMPARE((*again)->partSize("/big.bin", 64u << 20, 8), std::optional<std::uint64_t>()); // another version
}

void TestTransferJournal::partsCutOtherwiseAreNotTrusted()
{
    // Part 3 of 4 MiB parts is not part 3 of 32 MiB parts: a run that cuts the file
    // otherwise (a storage that wanted more streams the first time) copies it again.
    QTemporaryDir dir;
    auto journal = TransferJournal::create(dir.path().toStdString(), "job2", specWithParts(32u << 20));
    QVERIFY(journal.ok());
    (*journal)->beginFile("/big.bin", 64u << 20, 7, 4u << 20);
    (*journal)->markPartDone("/big.bin", 3, "abc");
    QVERIFY((*journal)->partsDone("/big.bin", 64u << 20, 7, 32u << 20).empty());
    QVERIFY((*journal)->partsDone("/big.bin", 64u << 20, 8, 4u << 20).empty()); // another version
    QCOMPARE((*journal)->partsDone("/big.bin", 64u << 20, 7, 4u << 20).size(), std::size_t(1));
}

void TestTransferJournal::aJournalWithoutPartSizesMeansTheSpecs()
{
    // A journal written before part sizes were logged ("S path size mtime"): its parts
    // were cut to the spec's part size.
    QTemporaryDir dir;
    {
        auto journal = TransferJournal::create(dir.path().toStdString(), "job3", specWithParts(8u << 20));
        QVERIFY(journal.ok());
    }
    const std::string path = TransferJournal::list(dir.path().toStdString()).at(0);
    std::FILE *f = std::fopen(path.c_str(), "a");
    QVERIFY(f);
    std::fputs("S /big.bin 67108864 7\nP /big.bin 2 def\n", f);
    std::fclose(f);
    auto old = TransferJournal::load(path);
    QVERIFY(old.ok());
    QCOMPARE((*old)->partsDone("/big.bin", 64u << 20, 7, 8u << 20).size(), std::size_t(1));
    QCOMPARE((*old)->partSize("/big.bin", 64u << 20, 7), std::optional<std::uint64_t>(8u << 20));
    QVERIFY((*old)->partsDone("/big.bin", 64u << 20, 7, 4u << 20).empty());
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestTransferJournal)
#include "test_transfer_journal.moc"
