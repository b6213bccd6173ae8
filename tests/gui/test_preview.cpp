// The preview beside a pane (Space) on the offscreen platform: text in the encoding found
// (UTF-8, UTF-16 with its mark, Latin-1; a partial read may cut a character), binary as a
// hex dump, only the first 64 KiB of a large file (one ranged read, on S3 too), an image
// scaled with its size, a sparse disk image's allocation map; it follows the current row,
// Space again or Esc closes it, and a slow store never stalls the window.
// STRATA_SCREENSHOT_DIR=dir saves preview-text.png, preview-image.png, preview-extents.png.
#include "tests/gui/gui_fixture.h"

#include "tests/behavior/behavior_root.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/common/allocation_map.h"
#include "ui/preview/preview_panel.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUrl>

#include <fcntl.h>
#include <unistd.h>

namespace strata {

using namespace gui_test;

class TestPreview : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void textEncodings();
    void followsTheCurrentRow();
    void rangedReadOnS3();
    void slowStoreNeverStalls();

private:
    void write(const QString &name, const QByteArray &bytes);
    void open(const QString &uri);
    QModelIndex rowNamed(const QString &name) const;
    // Makes `name` the current row and waits for its preview.
    void select(const QString &name);

    std::shared_ptr<Registry> m_registry;
    std::unique_ptr<BrowserPane> m_pane;
    QTemporaryDir m_dir;
};

void TestPreview::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    loadEnvFile(qEnvironmentVariable("STRATA_S3_ENVFILE").toStdString()); // s3rver
}

void TestPreview::textEncodings()
{
    auto check = [](const QByteArray &bytes, bool complete, const QString &encoding, const QString &text) {
        const TextPreview p = previewText(bytes, complete);
        QCOMPARE(p.encoding, encoding);
        QCOMPARE(p.text, text);
    };
    check("plain\nlines\n", true, QStringLiteral("UTF-8"), QStringLiteral("plain\nlines\n"));
    check("caf\xc3\xa9", true, QStringLiteral("UTF-8"), QStringLiteral("café"));
    // The first bytes of a longer file may end inside a character: still UTF-8, cut there.
    check("caf\xc3\xa9 \xe2\x82", false, QStringLiteral("UTF-8"), QStringLiteral("café "));
    // ...but a whole file that ends so is no UTF-8.
    check("caf\xc3\xa9 \xe2\x82", true, QStringLiteral("Latin-1"), QString::fromLatin1("caf\xc3\xa9 \xe2\x82"));
    check("caf\xe9", true, QStringLiteral("Latin-1"), QStringLiteral("café"));
    check("\xef\xbb\xbfmarked", true, QStringLiteral("UTF-8"), QStringLiteral("marked"));
    check(QByteArray("\xff\xfeh\0i\0", 6), true, QStringLiteral("UTF-16LE"), QStringLiteral("hi"));
    check(QByteArray("\xfe\xff\0h\0i\0", 7), false, QStringLiteral("UTF-16BE"), QStringLiteral("hi"));
    const TextPreview binary = previewText(QByteArray("ELF\0\x01\x02 hello", 12), true);
    QCOMPARE(binary.encoding, QStringLiteral("binary"));
    QVERIFY2(binary.text.startsWith(QLatin1String("00000000  45 4c 46 00 01 02 20 68  65 6c 6c 6f")),
             qPrintable(binary.text));
    QVERIFY(binary.text.contains(QLatin1String("ELF... hello")));
}

void TestPreview::write(const QString &name, const QByteArray &bytes)
{
    QFile f(m_dir.filePath(name));
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

void TestPreview::open(const QString &uri)
{
    m_pane->openUri(uri);
    QVERIFY2(
        waitFor([&] { return m_pane->location().op && !m_pane->model()->loading() && m_pane->model()->rowCount() > 0; },
                15000),
        qPrintable(uri));
}

QModelIndex TestPreview::rowNamed(const QString &name) const
{
    QAbstractItemModel *model = m_pane->view()->model();
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, DirectoryModel::Name).data().toString() == name)
            return model->index(row, DirectoryModel::Name);
    return {};
}

void TestPreview::select(const QString &name)
{
    const QModelIndex index = rowNamed(name);
    QVERIFY2(index.isValid(), qPrintable(QStringLiteral("no row named ") + name));
    int loaded = 0;
    const auto connection = QObject::connect(m_pane->previewPanel(), &PreviewPanel::loaded, [&loaded] { ++loaded; });
    m_pane->view()->setCurrentIndex(index);
    const bool done = waitFor([&] { return loaded > 0; }, 15000);
    QObject::disconnect(connection);
    QVERIFY2(done, qPrintable(name));
}

void TestPreview::followsTheCurrentRow()
{
    write(QStringLiteral("notes.txt"), "Grüße aus Zürich\nline two\n");
    QByteArray big;
    for (int i = 0; big.size() < (1 << 20); ++i)
        big += "log line " + QByteArray::number(i) + '\n';
    write(QStringLiteral("big.log"), big);
    write(QStringLiteral("tool.bin"),
          QByteArray("\x7f"
                     "ELF\x02\x01\x01\0\0\0",
                     10));
    QImage picture(300, 200, QImage::Format_RGB32);
    picture.fill(Qt::darkCyan);
    {
        QPainter paint(&picture);
        paint.fillRect(20, 20, 120, 80, Qt::yellow);
    }
    QVERIFY(picture.save(m_dir.filePath(QStringLiteral("picture.png"))));
    // A sparse 8 MiB disk image with 1 MiB of data at 2 MiB.
    {
        const int fd = ::open(QFile::encodeName(m_dir.filePath(QStringLiteral("disk.img"))).constData(),
                              O_CREAT | O_WRONLY | O_TRUNC, 0644);
        QVERIFY(fd >= 0);
        const QByteArray data(1 << 20, 'x');
        QCOMPARE(::pwrite(fd, data.constData(), size_t(data.size()), 2 << 20), ssize_t(data.size()));
        QCOMPARE(::ftruncate(fd, 8 << 20), 0);
        ::close(fd);
    }
    QDir(m_dir.path()).mkdir(QStringLiteral("folder"));

    m_registry = makeRegistry();
    m_pane = std::make_unique<BrowserPane>(*m_registry);
    m_pane->resize(1000, 600);
    m_pane->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_pane.get()));
    open(QUrl::fromLocalFile(m_dir.path()).toString());
    PreviewPanel *preview = m_pane->previewPanel();
    QVERIFY(!m_pane->previewing());
    m_pane->view()->setFocus();
    m_pane->view()->setCurrentIndex(rowNamed(QStringLiteral("notes.txt"))); // no preview yet
    QCOMPARE(preview->shown(), QStringLiteral("message"));
    QTest::keyClick(m_pane->view(), Qt::Key_Space);
    QVERIFY(m_pane->previewing());
    QVERIFY(waitFor([&] { return preview->shown() == QLatin1String("text"); }));
    QCOMPARE(preview->text(), QStringLiteral("Grüße aus Zürich\nline two\n"));
    QVERIFY2(preview->title().contains(QLatin1String("text, UTF-8")), qPrintable(preview->title()));
    const QByteArray shots = qgetenv("STRATA_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        m_pane->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/preview-text.png"));

    // A large file: its first 64 KiB only.
    select(QStringLiteral("big.log"));
    QCOMPARE(preview->shown(), QStringLiteral("text"));
    QCOMPARE(preview->text().size(), qsizetype(PreviewPanel::kTextBytes));
    QVERIFY(big.startsWith(preview->text().toUtf8()));
    QVERIFY2(preview->title().contains(QLatin1String("first 64 KiB of 1.0 MiB")), qPrintable(preview->title()));

    select(QStringLiteral("tool.bin"));
    QVERIFY2(preview->title().contains(QLatin1String("binary")), qPrintable(preview->title()));
    QVERIFY(preview->text().startsWith(QLatin1String("00000000  7f 45 4c 46")));

    select(QStringLiteral("picture.png"));
    QCOMPARE(preview->shown(), QStringLiteral("image"));
    QCOMPARE(preview->image().size(), QSize(300, 200));
    QCOMPARE(preview->image().pixelColor(60, 50), QColor(Qt::yellow));
    QVERIFY2(preview->title().contains(QStringLiteral("300 × 200 pixels")), qPrintable(preview->title()));
    if (!shots.isEmpty())
        m_pane->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/preview-image.png"));

    select(QStringLiteral("disk.img"));
    QCOMPARE(preview->shown(), QStringLiteral("extents"));
    QCOMPARE(preview->allocationMap()->totals().total(), std::uint64_t(8 << 20));
    QCOMPARE(preview->allocationMap()->totals().data, std::uint64_t(1 << 20));
    if (!shots.isEmpty())
        m_pane->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/preview-extents.png"));

    select(QStringLiteral("folder"));
    QCOMPARE(preview->shown(), QStringLiteral("message"));

    // Space again closes it; Esc too.
    QTest::keyClick(m_pane->view(), Qt::Key_Space);
    QVERIFY(!m_pane->previewing());
    QTest::keyClick(m_pane->view(), Qt::Key_Space);
    QVERIFY(m_pane->previewing());
    QTest::keyClick(m_pane->view(), Qt::Key_Escape);
    QVERIFY(!m_pane->previewing());
    m_pane.reset();
}

// On S3: a 5 MiB object previews from one ranged read of 64 KiB.
void TestPreview::rangedReadOnS3()
{
    const QString endpoint = qEnvironmentVariable("STRATA_S3_ENDPOINT"),
                  bucket = qEnvironmentVariable("STRATA_S3_BUCKET");
    QVERIFY2(!endpoint.isEmpty(), "no s3rver (run through CTest)");
    m_registry = makeRegistry();
    const QString prefix = QStringLiteral("preview-") + QString::number(QDateTime::currentMSecsSinceEpoch());
    const QString folder = QStringLiteral("s3://%1/%2/?endpoint=%3").arg(bucket, prefix, endpoint);
    QByteArray big;
    while (big.size() < (5 << 20))
        big += "s3 line " + QByteArray::number(big.size()) + '\n';
    put(*m_registry, QStringLiteral("s3://%1/%2/big.txt?endpoint=%3").arg(bucket, prefix, endpoint), big);
    m_pane = std::make_unique<BrowserPane>(*m_registry);
    m_pane->resize(900, 500);
    m_pane->show();
    open(folder);
    QTest::keyClick(m_pane->view(), Qt::Key_Space);
    select(QStringLiteral("big.txt"));
    PreviewPanel *preview = m_pane->previewPanel();
    QCOMPARE(preview->shown(), QStringLiteral("text"));
    QCOMPARE(preview->text().toUtf8(), big.left(qsizetype(PreviewPanel::kTextBytes)));
    QVERIFY2(preview->title().contains(QLatin1String("first 64 KiB of 5.0 MiB")), qPrintable(preview->title()));
    m_pane.reset();
}

// slow:// answers every call after 400 ms: the window goes on while the preview loads, and
// a row passed over on the way is never shown.
void TestPreview::slowStoreNeverStalls()
{
    m_registry = makeRegistry(std::chrono::milliseconds(400));
    put(*m_registry, QStringLiteral("slow://p/a.txt"), "first");
    put(*m_registry, QStringLiteral("slow://p/b.txt"), "second");
    m_pane = std::make_unique<BrowserPane>(*m_registry);
    m_pane->show();
    open(QStringLiteral("slow://p/"));
    QTest::keyClick(m_pane->view(), Qt::Key_Space);
    PreviewPanel *preview = m_pane->previewPanel();
    QAbstractItemView *view = m_pane->view();
    view->setCurrentIndex(rowNamed(QStringLiteral("a.txt")));
    // The read runs elsewhere: the row changed at once, the panel says it is loading.
    QCOMPARE(preview->shown(), QStringLiteral("message"));
    QCOMPARE(preview->text(), QStringLiteral("Loading…"));
    view->setCurrentIndex(rowNamed(QStringLiteral("b.txt"))); // before a.txt's answer
    QVERIFY(waitFor([&] { return preview->shown() == QLatin1String("text"); }, 15000));
    QCOMPARE(preview->text(), QStringLiteral("second"));
    m_pane.reset();
}

} // namespace strata

QTEST_MAIN(strata::TestPreview)
#include "test_preview.moc"
