// What an object store keeps and bills without showing it, on a real S3 server that keeps
// it (Ceph's radosgw, fixture rgw): older versions of objects and a multipart upload left
// unfinished. The backend lists them with their exact sizes; the Usage page shows them as
// their own categories, beside the objects, counted in the folders' totals but not as files.
#include "tests/behavior/behavior_root.h"
#include "tests/gui/gui_fixture.h"

#include "core/walk/scan.h"
#include "ui/usage/treemap.h"
#include "ui/usage/usage_tree.h"
#include "ui/usage/usage_view.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

namespace strata {

using namespace gui_test;

namespace {

QString env(const char *name)
{
    return qEnvironmentVariable(name);
}

const UsageNode *childNamed(const UsageNode *folder, const QString &name, Kept kept)
{
    for (const auto &c : folder->children)
        if (c->name == name && c->kept == kept)
            return c.get();
    return nullptr;
}

} // namespace

class TestUsageKept : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void versionsAndUploadsOnRadosgw();
};

void TestUsageKept::initTestCase()
{
    loadEnvFile(env("STRATA_S3_ENVFILE").toStdString());
    if (env("STRATA_S3_VERSIONED_BUCKET").isEmpty())
        QSKIP("no radosgw: run through CTest (fixture rgw)");
}

void TestUsageKept::versionsAndUploadsOnRadosgw()
{
    const QString endpoint = env("STRATA_S3_ENDPOINT"), bucket = env("STRATA_S3_VERSIONED_BUCKET");
    const QString key = env("AWS_ACCESS_KEY_ID"), secret = env("AWS_SECRET_ACCESS_KEY");
    const QString prefix = QStringLiteral("kept-%1").arg(QDateTime::currentMSecsSinceEpoch());
    const QString base = QStringLiteral("s3://%1/%2").arg(bucket, prefix);
    const QString query = QStringLiteral("?endpoint=") + endpoint;
    auto registry = makeRegistry();
    QVERIFY(
        registry->setSecret(QString(base + query).toStdString(), {key.toStdString(), secret.toStdString(), {}}).ok());
    // report.pdf written three times: 3 000 bytes now, 1 000 + 2 000 in older versions.
    for (int size : {1000, 2000, 3000})
        put(*registry, base + QStringLiteral("/docs/report.pdf") + query, QByteArray(size, 'r'));
    put(*registry, base + QStringLiteral("/docs/notes.txt") + query, QByteArray(500, 'n'));
    // gone.bin deleted: a delete marker on top, its 700 bytes still kept.
    put(*registry, base + QStringLiteral("/gone.bin") + query, QByteArray(700, 'g'));
    {
        auto at = registry->open(QString(base + QStringLiteral("/gone.bin") + query).toStdString());
        QVERIFY(at && at->op->remove(at->path));
    }
    // An upload a client began and never finished: one part of 300 000 bytes.
    QProcess upload;
    upload.start(QStringLiteral("bash"),
                 {QStringLiteral(STRATA_RGW_SH), QStringLiteral("unfinished-upload"), env("STRATA_S3_ENVFILE"), bucket,
                  prefix + QStringLiteral("/big.iso"), QStringLiteral("300000")});
    QVERIFY(upload.waitForFinished(60000));
    QVERIFY2(upload.exitCode() == 0, upload.readAllStandardError().constData());
    const std::string uploadId = QString::fromUtf8(upload.readAllStandardOutput()).trimmed().toStdString();

    // The backend: every version, newest first per object, and the upload with its bytes.
    auto root = registry->open(QString(base + query).toStdString());
    QVERIFY(root);
    auto versions = root->op->listVersions(root->path);
    QVERIFY2(versions, versions ? "" : versions.error().message().c_str());
    std::vector<std::uint64_t> reportSizes;
    int markers = 0;
    for (const StoredVersion &v : versions->versions) {
        QVERIFY(v.path.starts_with(root->path + "/"));
        if (v.path.ends_with("/docs/report.pdf"))
            reportSizes.push_back(v.size);
        markers += v.deleteMarker;
        if (v.path.ends_with("/docs/report.pdf") && v.size == 3000)
            QVERIFY(v.latest);
    }
    QCOMPARE(reportSizes, (std::vector<std::uint64_t>{3000, 2000, 1000}));
    QCOMPARE(markers, 1);
    auto uploads = root->op->listUploads(root->path);
    QVERIFY2(uploads, uploads ? "" : uploads.error().message().c_str());
    QCOMPARE(uploads->uploads.size(), std::size_t(1));
    QCOMPARE(uploads->uploads[0].uploadId, uploadId);
    QCOMPARE(uploads->uploads[0].bytes, std::uint64_t(300000));
    QCOMPARE(uploads->uploads[0].parts, std::uint32_t(1));
    QVERIFY(uploads->uploads[0].path.ends_with("/big.iso"));
    // Pages of one: every version and upload still comes once, through the page tokens.
    ListOptions one;
    one.pageSize = 1;
    std::size_t paged = 0;
    do {
        auto page = root->op->listVersions(root->path, one);
        QVERIFY2(page, page ? "" : page.error().message().c_str());
        paged += page->versions.size();
        one.pageToken = page->nextPageToken;
    } while (!one.pageToken.empty());
    QCOMPARE(paged, versions->versions.size());

    // The Usage page: the objects, and beside them what is kept.
    UsageView view;
    view.setRegistry(registry.get());
    view.resize(1000, 600);
    view.show();
    QSignalSpy done(&view, &UsageView::scanFinished);
    view.locationBox()->setEditText(base + query);
    view.scanTyped();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 30000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QVERIFY2(!done[0][1].toString().contains(secret), "a secret in the message");
    const UsageNode *top = view.current();
    QCOMPARE(top->bytes, std::uint64_t(3000 + 500 + 3000 + 700 + 300000));
    QCOMPARE(top->files, std::uint64_t(2)); // report.pdf and notes.txt: what is kept is no file
    const UsageNode *docs = childNamed(top, QStringLiteral("docs"), Kept::No);
    QVERIFY(docs);
    const UsageNode *older = childNamed(docs, QStringLiteral("report.pdf"), Kept::OldVersions);
    QVERIFY(older);
    QCOMPARE(older->bytes, std::uint64_t(3000));
    QCOMPARE(childNamed(docs, QStringLiteral("report.pdf"), Kept::No)->bytes, std::uint64_t(3000));
    QVERIFY(!childNamed(docs, QStringLiteral("notes.txt"), Kept::OldVersions)); // one version only
    const UsageNode *gone = childNamed(top, QStringLiteral("gone.bin"), Kept::OldVersions);
    QVERIFY(gone);
    QCOMPARE(gone->bytes, std::uint64_t(700));
    QVERIFY(!childNamed(top, QStringLiteral("gone.bin"), Kept::No));
    const UsageNode *unfinished = childNamed(top, QStringLiteral("big.iso"), Kept::Upload);
    QVERIFY(unfinished);
    QCOMPARE(unfinished->bytes, std::uint64_t(300000));
    QCOMPARE(top->children[0].get(), unfinished); // the largest
    QVERIFY(!view.canDelete(unfinished));         // not the object: not deleted as one
    // The list names them; the map draws them in their own colour.
    QCOMPARE(view.largest()->topLevelItem(0)->text(0), QStringLiteral("big.iso  (unfinished uploads)"));
    QTRY_VERIFY(view.treemap()->drawn());
    const QRectF r = view.treemap()->rects()[0];
    const QColor drawn(
        view.treemap()->grab().toImage().pixel((r.center() + QPointF(r.width() / 4, r.height() / 4)).toPoint()));
    QVERIFY2(std::abs(drawn.red() - drawn.green()) < 20 && drawn.red() < 120, qPrintable(drawn.name())); // dark grey
    // Saved and read again, they stay what they are.
    const QString file =
        QDir::temp().filePath(QStringLiteral("kept-%1.strata-scan").arg(QCoreApplication::applicationPid()));
    QVERIFY(view.saveScan(file));
    auto saved = loadScan(file.toStdString());
    QFile::remove(file);
    QVERIFY(saved);
    int keptEntries = 0;
    for (const ScanEntry &e : saved->entries)
        keptEntries += e.kept != Kept::No;
    QCOMPARE(keptEntries, 3);

    // Cleaned up: the upload aborted (the versions go with the fixture's throw-away cluster).
    {
        auto at = registry->open(QString(base + QStringLiteral("/big.iso") + query).toStdString());
        QVERIFY(at);
        at->op->discardPending(at->path, uploadId);
        auto left = root->op->listUploads(root->path);
        QVERIFY(left && left->uploads.empty());
    }
}

} // namespace strata

QTEST_MAIN(strata::TestUsageKept)
#include "test_usage_kept.moc"
