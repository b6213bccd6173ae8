#include "ui/main_window.h"

#include "core/storage/registry.h"

#include <QAction>
#include <QApplication>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>
#include <QVBoxLayout>

namespace strata {

MainWindow::MainWindow(Registry &registry, QWidget *parent) : QMainWindow(parent), m_registry(registry)
{
    setWindowTitle(tr("Strata"));
    resize(960, 600);

    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    auto *quit = fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QStringList schemes;
    for (const auto &s : m_registry.schemes())
        schemes << QString::fromStdString(s) + QStringLiteral("://");

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    auto *title = new QLabel(tr("<h1>Strata</h1><p>Browse, move and measure storage.</p>"), central);
    auto *body = new QLabel(tr("<p>Connections available in this build: <b>%1</b></p>"
                               "<p>Try the command line meanwhile: <tt>strata ls -l memory://demo/</tt></p>")
                                .arg(schemes.join(QStringLiteral(", "))),
                            central);
    body->setTextFormat(Qt::RichText);
    body->setWordWrap(true);
    layout->addWidget(title);
    layout->addWidget(body);
    layout->addStretch();
    setCentralWidget(central);
    statusBar()->showMessage(tr("Ready"));
}

} // namespace strata
