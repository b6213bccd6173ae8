#pragma once

#include "core/storage/entry.h"
#include "core/storage/operator.h"

#include <QByteArray>
#include <QImage>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <string>

class QLabel;
class QPlainTextEdit;
class QStackedWidget;

namespace strata {

class AllocationMap;

// What a preview shows of a file's first bytes: text in the encoding found, or, for bytes
// that are no text, a hex dump. Qt-free of widgets, so tests can feed it bytes.
struct TextPreview {
    QString text;
    QString encoding; // "UTF-8", "UTF-16LE", "Latin-1", or "binary" (text is a hex dump)
};
// `complete`: the bytes are the whole file (else a multi-byte character may be cut at the
// end, which is no sign of binary data).
TextPreview previewText(const QByteArray &bytes, bool complete);

// The preview beside a pane (Space): the first part of a text file (one ranged read, any
// storage), an image scaled to the panel, or a disk image's allocation map (from its
// extents), never the whole object unless it is an image that small. Reads run on the
// I/O pool; a preview asked for later replaces one still loading.
class PreviewPanel : public QWidget {
    Q_OBJECT
public:
    // How much of a file is read for its text, and the largest image read whole.
    static constexpr std::uint64_t kTextBytes = 64 * 1024;
    static constexpr std::uint64_t kImageBytes = 32ull << 20;

    explicit PreviewPanel(QWidget *parent = nullptr);

    void preview(std::shared_ptr<Operator> op, const Entry &entry);
    void clear();

    // For tests and the status line: what is shown ("text", "image", "extents", "message").
    QString shown() const { return m_shown; }
    QString title() const;
    QString text() const;
    QImage image() const { return m_image; }
    AllocationMap *allocationMap() const { return m_map; }

Q_SIGNALS:
    void loaded(); // the preview asked for last is in (or the reason there is none)

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void showMessage(const QString &message);
    void showText(const TextPreview &preview, std::uint64_t read, std::uint64_t size);
    void showImage(const QImage &image, QSize pixels, std::uint64_t size);
    void scaleImage();

    QLabel *m_title;
    QStackedWidget *m_pages;
    QLabel *m_message;
    QPlainTextEdit *m_text;
    QLabel *m_picture;
    AllocationMap *m_map;
    QImage m_image;
    QString m_name; // of the entry shown: the title starts with it
    QString m_shown;
    std::uint64_t m_generation = 0; // an answer for an earlier preview is dropped
};

} // namespace strata
