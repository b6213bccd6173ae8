#include "ui/transfers/transfer_starter.h"

#include "core/storage/path.h"
#include "ui/common/io_pool.h"
#include "ui/transfers/transfer_queue_model.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

namespace strata {

namespace {

struct Check {
    QStringList conflicts; // sources whose name is taken at the destination
    QStringList freeNames; // for each conflict: a name not taken ("a (2).txt")
    QString error;
};

std::string nameOf(const QString &uri)
{
    auto parsed = Uri::parse(uri.toStdString());
    return parsed ? std::string(baseName(parsed->path())) : std::string();
}

// "report.pdf" -> "report (2).pdf", "(3)", … until one is free.
Result<std::string> freeName(Operator &op, const std::string &dir, const std::string &name)
{
    const auto dot = name.rfind('.');
    const std::string stem = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
    const std::string ext = stem.size() == name.size() ? std::string() : name.substr(dot);
    for (int i = 2; i < 1000; ++i) {
        std::string candidate = stem + " (" + std::to_string(i) + ")" + ext;
        auto there = op.stat(joinPath(dir, candidate));
        if (!there && there.error().kind() == ErrorKind::NotFound)
            return candidate;
        if (!there)
            return std::move(there).error();
    }
    return Error(ErrorKind::AlreadyExists, "no free name like '" + name + " (N)' is left");
}

} // namespace

TransferStarter::TransferStarter(Registry &registry, TransferQueueModel *queue, QWidget *window)
    : QObject(window), m_registry(registry), m_queue(queue), m_window(window)
{
    connect(m_queue, &TransferQueueModel::jobFinished, this, [this](const QString &id, bool ok) {
        const QString local = m_openWhenDone.take(id);
        if (!local.isEmpty() && ok)
            QDesktopServices::openUrl(QUrl::fromLocalFile(local));
    });
}

void TransferStarter::start(const QStringList &sources, const QString &destinationDir, bool move)
{
    QtConcurrent::run(ioPool(), [registry = m_registry.shared_from_this(), sources, destinationDir] {
        Check check;
        auto dst = registry->open(destinationDir.toStdString());
        if (!dst) {
            check.error = QString::fromStdString(dst.error().message());
            return check;
        }
        for (const auto &source : sources) {
            const std::string name = nameOf(source);
            auto there = dst->op->stat(joinPath(dst->path, name));
            if (!there && there.error().kind() != ErrorKind::NotFound) {
                check.error = QString::fromStdString(there.error().message());
                return check;
            }
            if (!there)
                continue;
            auto free = freeName(*dst->op, dst->path, name);
            check.conflicts << source;
            check.freeNames << (free ? QString::fromStdString(*free) : QString());
        }
        return check;
    }).then(this, [this, sources, destinationDir, move](const Check &check) {
        if (!check.error.isEmpty()) {
            Q_EMIT notify(check.error, true);
            return;
        }
        if (check.conflicts.isEmpty() || m_answer != Conflict::Ask) {
            enqueue(sources, destinationDir, move, m_answer == Conflict::Ask ? Conflict::Overwrite : m_answer,
                    check.conflicts, check.freeNames);
            return;
        }
        // One question for the whole batch.
        QStringList names;
        for (const auto &c : check.conflicts.mid(0, 8))
            names << QString::fromStdString(nameOf(c));
        auto *box =
            new QMessageBox(QMessageBox::Question, tr("Names already taken"),
                            tr("%n item(s) already exist in the destination.", nullptr, int(check.conflicts.size())),
                            QMessageBox::Cancel, m_window);
        box->setObjectName(QStringLiteral("conflictDialog"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setInformativeText(names.join(QLatin1Char('\n'))
                                + (check.conflicts.size() > 8 ? QStringLiteral("\n…") : QString()));
        auto *overwrite = box->addButton(tr("&Overwrite all"), QMessageBox::DestructiveRole);
        auto *skip = box->addButton(tr("&Skip all"), QMessageBox::AcceptRole);
        auto *both = box->addButton(tr("&Keep both"), QMessageBox::AcceptRole);
        box->setDefaultButton(skip);
        connect(box, &QMessageBox::buttonClicked, this, [=, this](QAbstractButton *clicked) {
            const Conflict policy = clicked == overwrite ? Conflict::Overwrite
                : clicked == skip                        ? Conflict::Skip
                : clicked == both                        ? Conflict::KeepBoth
                                                         : Conflict::Ask;
            if (policy != Conflict::Ask)
                enqueue(sources, destinationDir, move, policy, check.conflicts, check.freeNames);
        });
        box->open();
    });
}

void TransferStarter::enqueue(const QStringList &sources, const QString &destinationDir, bool move, Conflict policy,
                              const QStringList &conflicts, const QStringList &freeNames)
{
    // The folder is a value: a name goes into its path, never after its options.
    auto folder = Uri::parse(destinationDir.toStdString());
    if (!folder) {
        Q_EMIT notify(QString::fromStdString(folder.error().message()), true);
        return;
    }
    TransferSpec batch;
    batch.destination = folder->asFolder().toString();
    batch.options.mode = move ? TransferMode::Move : TransferMode::Copy;
    batch.options.recursive = true;
    batch.options.existing = policy == Conflict::Skip ? ExistingPolicy::Skip : ExistingPolicy::Overwrite;
    std::vector<TransferSpec> specs;
    for (const auto &source : sources) {
        const qsizetype conflict = conflicts.indexOf(source);
        if (policy == Conflict::KeepBoth && conflict >= 0) {
            if (freeNames[conflict].isEmpty())
                continue;
            // Its own job, to the free name.
            TransferSpec renamed = batch;
            renamed.sources = {source.toStdString()};
            renamed.destination = folder->child(freeNames[conflict].toStdString()).toString();
            renamed.options.existing = ExistingPolicy::Fail;
            specs.push_back(std::move(renamed));
        } else {
            batch.sources.push_back(source.toStdString());
        }
    }
    if (!batch.sources.empty())
        specs.insert(specs.begin(), std::move(batch));
    for (auto &spec : specs) {
        auto id = m_queue->enqueue(std::move(spec));
        if (!id)
            Q_EMIT notify(QString::fromStdString(id.error().message()), true);
        else
            Q_EMIT enqueued(QString::fromStdString(*id));
    }
}

QList<QUrl> TransferStarter::exportForDesktop(const Location &location, const std::vector<Entry> &entries)
{
    std::uint64_t total = 0;
    for (const auto &e : entries) {
        if (!e.isFile())
            return {};
        total += e.size;
    }
    if (total > DesktopExportLimit)
        return {};
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/strata-drag-XXXXXX"));
    dir.setAutoRemove(false);
    if (!dir.isValid())
        return {};
    QList<QUrl> urls;
    for (const auto &e : entries) {
        const QString local = dir.filePath(QString::fromStdString(e.name));
        TransferSpec spec;
        spec.sources = {location.op->uriFor(e.path).toString()};
        spec.destination = Uri::fromLocalPath(local.toStdString()).toString();
        if (m_queue->enqueue(std::move(spec)))
            urls << QUrl::fromLocalFile(local);
    }
    return urls;
}

void TransferStarter::openWithDesktop(const QString &uri, const Location &location, const std::string &path)
{
    if (auto local = location.op->localPath(path)) {
        QDesktopServices::openUrl(QUrl::fromLocalFile(QString::fromStdString(*local)));
        return;
    }
    // Remote: fetched to a folder of its own under the temporary directory, then opened.
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/strata-open-XXXXXX"));
    dir.setAutoRemove(false);
    if (!dir.isValid()) {
        Q_EMIT notify(tr("cannot create a temporary folder to open %1 in").arg(uri), true);
        return;
    }
    const QString local = dir.filePath(QString::fromStdString(std::string(baseName(path))));
    TransferSpec spec;
    spec.sources = {uri.toStdString()};
    spec.destination = Uri::fromLocalPath(local.toStdString()).toString();
    auto id = m_queue->enqueue(std::move(spec));
    if (!id) {
        Q_EMIT notify(QString::fromStdString(id.error().message()), true);
        return;
    }
    m_openWhenDone.insert(QString::fromStdString(*id), local);
    Q_EMIT notify(tr("Fetching %1 to open it…").arg(QString::fromStdString(location.op->display(path))), false);
}

} // namespace strata
