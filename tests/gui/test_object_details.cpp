// The properties dialog of an object on a real S3 server that keeps versions and tags
// (Ceph's radosgw, fixture rgw): the Object tab shows and saves content type, cache
// control, user metadata and tags; the Versions tab lists every version newest first,
// hands one over for download by its own URI, and deletes one (after asking) and only it;
// Copy Share Link puts a link radosgw honours on the clipboard.
// STRATA_SCREENSHOT_DIR=dir saves the pictures.
#include "tests/behavior/behavior_root.h"
#include "tests/gui/gui_fixture.h"

#include "core/walk/scan.h"
#include "ui/browser/properties_dialog.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

namespace strata {

using namespace gui_test;

class TestObjectDetails : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void detailsVersionsAndLinksOnRadosgw();
};

void TestObjectDetails::initTestCase()
{
    loadEnvFile(qEnvironmentVariable("STRATA_S3_ENVFILE").toStdString());
    if (qEnvironmentVariable("STRATA_S3_VERSIONED_BUCKET").isEmpty())
        QFAIL("no radosgw: run through CTest (fixture rgw)");
}

void TestObjectDetails::detailsVersionsAndLinksOnRadosgw()
{
    const QString base = QStringLiteral("s3://%1/details-%2")
                             .arg(qEnvironmentVariable("STRATA_S3_VERSIONED_BUCKET"))
                             .arg(QDateTime::currentMSecsSinceEpoch());
    const QString query = QStringLiteral("?endpoint=") + qEnvironmentVariable("STRATA_S3_ENDPOINT");
    const QString uri = base + QStringLiteral("/report.pdf") + query;
    auto registry = makeRegistry();
    for (int size : {1000, 2000, 3000})
        put(*registry, uri, QByteArray(size, char('a' + size / 1000)));
    auto at = registry->open(uri.toStdString());
    QVERIFY(at.ok());

    PropertiesDialog dialog(at->op, at->path);
    dialog.setRegistry(registry.get());
    QSignalSpy loaded(&dialog, &PropertiesDialog::loaded);
    dialog.resize(640, 520);
    dialog.show();
    QVERIFY(loaded.wait(15000));
    auto *tabs = dialog.findChild<QTabWidget *>();
    QCOMPARE(tabs->count(), 3); // General, Object, Versions
    auto *type = dialog.findChild<QLineEdit *>(QStringLiteral("contentType"));
    auto *cache = dialog.findChild<QLineEdit *>(QStringLiteral("cacheControl"));
    auto *metadata = dialog.findChild<QTableWidget *>(QStringLiteral("metadata"));
    auto *tags = dialog.findChild<QTableWidget *>(QStringLiteral("tags"));
    QVERIFY(type->isEnabled() && tags->isEnabled());
    QCOMPARE(metadata->rowCount(), 0);
    QCOMPARE(tags->rowCount(), 0);

    // Edited and saved: the server keeps exactly that, the bytes untouched.
    type->setText(QStringLiteral("application/pdf"));
    cache->setText(QStringLiteral("max-age=60"));
    const auto addPair = [](QTableWidget *table, const QString &key, const QString &value) {
        table->insertRow(table->rowCount());
        table->setItem(table->rowCount() - 1, 0, new QTableWidgetItem(key));
        table->setItem(table->rowCount() - 1, 1, new QTableWidgetItem(value));
    };
    addPair(metadata, QStringLiteral("owner"), QStringLiteral("ana"));
    addPair(tags, QStringLiteral("project"), QStringLiteral("atlas"));
    QSignalSpy saved(&dialog, &PropertiesDialog::saved);
    dialog.findChild<QPushButton *>(QStringLiteral("saveDetails"))->click();
    QVERIFY(saved.wait(15000));
    QVERIFY(loaded.wait(15000));
    auto details = at->op->details(at->path);
    QVERIFY(details.ok());
    QCOMPARE(details->contentType, std::string("application/pdf"));
    QCOMPARE(details->cacheControl, std::string("max-age=60"));
    QCOMPARE(details->metadata, (std::map<std::string, std::string>{{"owner", "ana"}}));
    QCOMPARE(*details->tags, (std::map<std::string, std::string>{{"project", "atlas"}}));
    QCOMPARE(get(*registry, uri), QByteArray(3000, 'd'));
    if (const QByteArray dir = qgetenv("STRATA_SCREENSHOT_DIR"); !dir.isEmpty()) {
        tabs->setCurrentIndex(1);
        dialog.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/object-details.png"));
    }

    // Four versions now (the metadata change copied the object onto itself), newest first.
    auto *versions = dialog.findChild<QTreeWidget *>(QStringLiteral("versions"));
    QCOMPARE(versions->topLevelItemCount(), 4);
    QCOMPARE(versions->topLevelItem(0)->text(3), QStringLiteral("latest"));
    QCOMPARE(versions->topLevelItem(3)->text(1), QStringLiteral("1000 bytes"));
    tabs->setCurrentIndex(2);
    if (const QByteArray dir = qgetenv("STRATA_SCREENSHOT_DIR"); !dir.isEmpty())
        dialog.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/object-versions.png"));
    // The oldest is handed over by its own URI, which reads its bytes.
    versions->setCurrentItem(versions->topLevelItem(3));
    QVERIFY(dialog.findChild<QPushButton *>(QStringLiteral("restoreVersion"))->isEnabled()); // not the latest
    QSignalSpy download(&dialog, &PropertiesDialog::downloadVersion);
    dialog.findChild<QPushButton *>(QStringLiteral("downloadVersion"))->click();
    QCOMPARE(download.size(), 1);
    const QString versionUri = download.front().front().toString();
    QVERIFY(versionUri.contains(QStringLiteral("versionId=")));
    QCOMPARE(get(*registry, versionUri), QByteArray(1000, 'b'));

    // Deleting the 2000-byte version asks, then deletes it alone.
    versions->setCurrentItem(versions->topLevelItem(2));
    QCOMPARE(versions->topLevelItem(2)->text(1), QStringLiteral("2.0 KiB"));
    dialog.findChild<QPushButton *>(QStringLiteral("deleteVersion"))->click();
    QMessageBox *ask = nullptr;
    QVERIFY(waitFor([&] { return (ask = dialog.findChild<QMessageBox *>(QStringLiteral("deleteVersionDialog"))); }));
    for (auto *button : ask->buttons())
        if (ask->buttonRole(button) == QMessageBox::DestructiveRole)
            button->click();
    QVERIFY(loaded.wait(15000));
    QCOMPARE(versions->topLevelItemCount(), 3);
    auto left = objectVersions(*at->op, at->path);
    QVERIFY(left.ok());
    QCOMPARE(left->size(), std::size_t(3));
    for (const auto &v : *left)
        QVERIFY(v.size != 2000);

    // Copy Share Link: a link radosgw serves without credentials.
    dialog.findChild<QPushButton *>(QStringLiteral("copyShareLink"))->click();
    const QString link = QGuiApplication::clipboard()->text();
    QVERIFY2(link.contains(QStringLiteral("X-Amz-Signature=")), qPrintable(link));
    QVERIFY(!link.contains(qEnvironmentVariable("AWS_SECRET_ACCESS_KEY")));
    QProcess curl;
    curl.start(QStringLiteral("curl"), {QStringLiteral("-sf"), link});
    QVERIFY(curl.waitForFinished(15000));
    QCOMPARE(curl.exitCode(), 0);
    QCOMPARE(curl.readAllStandardOutput(), QByteArray(3000, 'd'));
}

} // namespace strata

QTEST_MAIN(strata::TestObjectDetails)
#include "test_object_details.moc"
