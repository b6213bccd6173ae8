#pragma once

#include <QMainWindow>

namespace strata {

class Registry;

// The application window. For now a welcome page; the two-pane browser comes next.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(Registry &registry, QWidget *parent = nullptr);

private:
    Registry &m_registry;
};

} // namespace strata
