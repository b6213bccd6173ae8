#include "ui/preview/preview_panel.h"

#include "ui/common/allocation_map.h"
#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"

#include <QBuffer>
#include <QFontDatabase>
#include <QImageReader>
#include <QLabel>
#include <QMimeDatabase>
#include <QPlainTextEdit>
#include <QStackedWidget>
#include <QStringDecoder>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <vector>

namespace strata {

namespace {

// Whether the bytes are UTF-8 (a sequence cut by the end of a partial read is allowed).
bool validUtf8(const QByteArray &bytes, bool complete)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qsizetype n = bytes.size();
    for (qsizetype i = 0; i < n;) {
        const unsigned char c = p[i];
        const int more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        if (more < 0 || (more == 1 && c < 0xC2))
            return false;
        if (i + more >= n)
            return !complete && more > 0
                && std::all_of(p + i + 1, p + n, [](unsigned char b) { return (b & 0xC0) == 0x80; });
        for (int k = 1; k <= more; ++k)
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
        i += 1 + more;
    }
    return true;
}

// Control characters other than tab, line breaks and form feed: a sign of binary data.
bool looksBinary(const QByteArray &bytes)
{
    if (bytes.contains('\0'))
        return true;
    qsizetype control = 0;
    for (char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b)
            ++control;
    }
    return control * 100 > bytes.size(); // more than 1 %
}

QString hexDump(const QByteArray &bytes)
{
    QString out;
    const qsizetype n = std::min<qsizetype>(bytes.size(), 4096);
    for (qsizetype row = 0; row < n; row += 16) {
        QString hex, ascii;
        for (qsizetype i = row; i < row + 16; ++i) {
            if (i < n) {
                const auto c = static_cast<unsigned char>(bytes[i]);
                hex += QStringLiteral("%1 ").arg(c, 2, 16, QLatin1Char('0'));
                ascii += c >= 0x20 && c < 0x7f ? QChar(char16_t(c)) : QChar(u'.');
            } else {
                hex += QStringLiteral("   ");
            }
            if (i == row + 7)
                hex += QLatin1Char(' ');
        }
        out += QStringLiteral("%1  %2 %3\n").arg(row, 8, 16, QLatin1Char('0')).arg(hex, ascii);
    }
    return out;
}

enum class Kind { Text, Image, Extents, Folder };

Kind kindOf(const Operator &op, const Entry &entry)
{
    if (entry.isDir())
        return Kind::Folder;
    const QString name = QString::fromStdString(entry.name);
    if (op.capabilities().has(Capability::Extents)) {
        static const QStringList imageSuffixes = {
            QStringLiteral("img"),  QStringLiteral("raw"), QStringLiteral("iso"), QStringLiteral("qcow2"),
            QStringLiteral("vmdk"), QStringLiteral("vdi"), QStringLiteral("vhd"), QStringLiteral("vhdx"),
            QStringLiteral("dd"),   QStringLiteral("disk")};
        const QString suffix = name.section(QLatin1Char('.'), -1).toLower();
        const bool nbd = op.uriFor("/").scheme().starts_with("nbd");
        if (nbd || (name.contains(QLatin1Char('.')) && imageSuffixes.contains(suffix)))
            return Kind::Extents;
    }
    static const QList<QByteArray> readable = QImageReader::supportedMimeTypes();
    const QMimeType mime = QMimeDatabase().mimeTypeForFile(name, QMimeDatabase::MatchExtension);
    if (mime.name().startsWith(QLatin1String("image/")) && readable.contains(mime.name().toLatin1()))
        return Kind::Image;
    return Kind::Text;
}

struct Loaded {
    Kind kind = Kind::Text;
    QString error;
    TextPreview text;
    std::uint64_t read = 0;
    QImage image;
    QSize pixels; // the image's own size (it may be decoded smaller)
};

Loaded load(const std::shared_ptr<Operator> &op, const Entry &entry, Kind kind)
{
    Loaded out;
    out.kind = kind;
    if (kind == Kind::Image) {
        auto bytes = op->readAll(entry.path, PreviewPanel::kImageBytes);
        if (!bytes) {
            out.error = QString::fromStdString(bytes.error().message());
            return out;
        }
        QByteArray data(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size()));
        QBuffer buffer(&data);
        QImageReader reader(&buffer);
        reader.setAutoTransform(true);
        // Decoded no larger than a screen needs: a 100-megapixel photo stays cheap.
        const QSize size = reader.size();
        out.pixels = size;
        if (size.isValid() && (size.width() > 2048 || size.height() > 2048))
            reader.setScaledSize(size.scaled(2048, 2048, Qt::KeepAspectRatio));
        out.image = reader.read();
        if (!out.pixels.isValid())
            out.pixels = out.image.size();
        out.read = bytes->size();
        if (out.image.isNull())
            out.error = QObject::tr("This image cannot be read: %1").arg(reader.errorString());
        return out;
    }
    // Text: the first bytes only, one ranged read.
    std::vector<std::byte> buffer(
        std::min<std::uint64_t>(PreviewPanel::kTextBytes, std::max<std::uint64_t>(entry.size, 1)));
    auto got = op->read(entry.path, 0, buffer);
    if (!got) {
        out.error = QString::fromStdString(got.error().message());
        return out;
    }
    out.read = *got;
    const QByteArray bytes(reinterpret_cast<const char *>(buffer.data()), qsizetype(*got));
    out.text = previewText(bytes, *got >= entry.size);
    return out;
}

} // namespace

TextPreview previewText(const QByteArray &bytes, bool complete)
{
    // A byte-order mark says it all.
    if (bytes.startsWith("\xEF\xBB\xBF"))
        return {QString::fromUtf8(bytes.mid(3)), QStringLiteral("UTF-8")};
    for (auto [bom, encoding, name] :
         {std::tuple{QByteArrayLiteral("\xFF\xFE"), QStringConverter::Utf16LE, QStringLiteral("UTF-16LE")},
          std::tuple{QByteArrayLiteral("\xFE\xFF"), QStringConverter::Utf16BE, QStringLiteral("UTF-16BE")}}) {
        if (bytes.startsWith(bom)) {
            QStringDecoder decode(encoding);
            QByteArray body = bytes.mid(2);
            if (!complete && body.size() % 2)
                body.chop(1);
            return {decode(body), name};
        }
    }
    if (looksBinary(bytes))
        return {hexDump(bytes), QStringLiteral("binary")};
    if (validUtf8(bytes, complete)) {
        QStringDecoder decode(QStringConverter::Utf8);
        return {decode(bytes), QStringLiteral("UTF-8")};
    }
    // Not UTF-8: one byte, one character (ISO 8859-1 reads any byte).
    return {QString::fromLatin1(bytes), QStringLiteral("Latin-1")};
}

PreviewPanel::PreviewPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 0, 0);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("previewTitle"));
    m_title->setTextFormat(Qt::PlainText);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_pages = new QStackedWidget(this);
    m_message = new QLabel(m_pages);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_text = new QPlainTextEdit(m_pages);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_picture = new QLabel(m_pages);
    m_picture->setAlignment(Qt::AlignCenter);
    m_picture->setMinimumSize(1, 1); // the pixmap never sets the panel's size
    m_map = new AllocationMap(m_pages);
    m_pages->addWidget(m_message);
    m_pages->addWidget(m_text);
    m_pages->addWidget(m_picture);
    m_pages->addWidget(m_map);
    layout->addWidget(m_pages, 1);
    connect(m_map, &AllocationMap::loaded, this, &PreviewPanel::loaded); // its summary is under it
    clear();
}

QString PreviewPanel::title() const
{
    return m_title->text();
}

QString PreviewPanel::text() const
{
    return m_shown == QLatin1String("message") ? m_message->text() : m_text->toPlainText();
}

void PreviewPanel::clear()
{
    ++m_generation;
    m_map->clear();
    m_image = {};
    m_title->clear();
    showMessage(tr("Select a file to preview it."));
}

void PreviewPanel::preview(std::shared_ptr<Operator> op, const Entry &entry)
{
    const std::uint64_t generation = ++m_generation;
    m_map->clear();
    m_image = {};
    m_name = QString::fromStdString(entry.name);
    m_title->setText(entry.isDir() ? m_name : tr("%1 — %2").arg(m_name, sizeString(entry.size)));
    const Kind kind = kindOf(*op, entry);
    if (kind == Kind::Folder) {
        showMessage(tr("A folder. Open it to see what is inside."));
        Q_EMIT loaded();
        return;
    }
    if (kind == Kind::Extents) {
        m_shown = QStringLiteral("extents");
        m_title->setText(tr("%1 — %2; where its data is").arg(m_name, sizeString(entry.size)));
        m_pages->setCurrentWidget(m_map);
        m_map->load(std::move(op), entry.path); // loaded() comes from the map
        return;
    }
    if (kind == Kind::Image && entry.size > kImageBytes) {
        showMessage(tr("This image is %1: too large to preview. Open it instead.").arg(sizeString(entry.size)));
        Q_EMIT loaded();
        return;
    }
    showMessage(tr("Loading…"));
    QtConcurrent::run(ioPool(), [op, entry, kind] {
        return load(op, entry, kind);
    }).then(this, [this, generation, size = entry.size](const Loaded &result) {
        if (generation != m_generation)
            return;
        if (!result.error.isEmpty())
            showMessage(result.error);
        else if (result.kind == Kind::Image)
            showImage(result.image, result.pixels, size);
        else
            showText(result.text, result.read, size);
        Q_EMIT loaded();
    });
}

void PreviewPanel::showMessage(const QString &message)
{
    m_shown = QStringLiteral("message");
    m_message->setText(message);
    m_pages->setCurrentWidget(m_message);
}

void PreviewPanel::showText(const TextPreview &preview, std::uint64_t read, std::uint64_t size)
{
    m_shown = QStringLiteral("text");
    m_text->setPlainText(preview.text);
    const QString what = preview.encoding == QLatin1String("binary") ? tr("binary, the first bytes in hex")
                                                                     : tr("text, %1").arg(preview.encoding);
    const QString part = read < size ? tr("first %1 of %2").arg(sizeString(read), sizeString(size)) : sizeString(size);
    m_title->setText(tr("%1 — %2; %3").arg(m_name, part, what));
    m_pages->setCurrentWidget(m_text);
}

void PreviewPanel::showImage(const QImage &image, QSize pixels, std::uint64_t size)
{
    m_shown = QStringLiteral("image");
    m_image = image;
    m_title->setText(
        tr("%1 — %2; %3 × %4 pixels").arg(m_name, sizeString(size)).arg(pixels.width()).arg(pixels.height()));
    m_pages->setCurrentWidget(m_picture);
    scaleImage();
}

void PreviewPanel::scaleImage()
{
    if (m_image.isNull())
        return;
    const QSize room = m_picture->size();
    const QImage fitted = m_image.width() > room.width() || m_image.height() > room.height()
        ? m_image.scaled(room, Qt::KeepAspectRatio, Qt::SmoothTransformation)
        : m_image;
    m_picture->setPixmap(QPixmap::fromImage(fitted));
}

void PreviewPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    scaleImage();
}

} // namespace strata
