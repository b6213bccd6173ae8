#pragma once

#include "core/storage/entry.h"
#include "core/storage/registry.h"
#include "ui/browser/browser_view.h"

#include <QStringList>
#include <QUrl>
#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

class QAbstractItemModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QToolButton;

namespace strata {

class DirectoryModel;
class PathBar;
class PreviewPanel;
class SearchModel;

// One side of the two-pane browser: a path bar with back/forward/up, a filter box and a
// sortable detail view of one directory of any connection. Opening a URI resolves it off
// the GUI thread; the listing streams in (DirectoryModel).
class BrowserPane : public QWidget {
    Q_OBJECT
public:
    BrowserPane(Registry &registry, QWidget *parent = nullptr);

    void openUri(const QString &uri); // adds to the history
    void refresh();
    void goUp();
    void goBack();
    void goForward();
    void editLocation();
    void focusFilter();
    // Search below the folder shown (Ctrl+Shift+F): the search bar opens, focused; Return
    // runs the search, whose results replace the listing until the bar is closed (Esc).
    void startSearch();
    void runSearch();
    void stopSearch();
    void closeSearch();
    bool searching() const; // the view shows search results
    // Selects the rows Compare Folders marked so (and nothing else).
    void selectMarked(std::initializer_list<int> marks);
    // Shows the folder of the selected search result, with it selected.
    void openContainingFolder();
    // The preview beside the listing (Space, again or Esc to close): the current row's
    // first text, image or allocation map (PreviewPanel), following the current row.
    void togglePreview();
    bool previewing() const;
    PreviewPanel *previewPanel() const { return m_preview; }
    void setDesktopExport(const std::function<QList<QUrl>(const Location &, const std::vector<Entry> &)> &exportFiles);

    const Location &location() const;
    QString displayUri() const;
    QString uriOf(const std::string &path) const;
    std::vector<Entry> selectedEntries() const;
    BrowserView *view() const { return m_view; }
    DirectoryModel *model() const { return m_model; }
    SearchModel *searchModel() const { return m_search; }
    // The status line of this pane ("12 items, 3 selected (4.2 MiB)").
    QString summary() const;

Q_SIGNALS:
    void fileActivated(const QString &uri, const strata::Entry &entry);
    void transferRequested(const QStringList &sources, const QString &destinationUri, bool move);
    void focused();
    void renameRequested();
    void summaryChanged();
    void locationChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void navigate(const QString &uri, bool remember);
    void filter(const QString &text);
    void showModel(QAbstractItemModel *wanted);
    void layoutColumns();
    std::optional<Entry> entryAt(const QModelIndex &viewIndex) const;
    void selectPending();
    void showLocation(const Location &location);
    void activate(const QModelIndex &viewIndex);
    void updateState();
    void updateButtons();
    void updatePreview();

    Registry &m_registry;
    PathBar *m_pathBar;
    QToolButton *m_back, *m_forward, *m_up;
    QLineEdit *m_filter;
    QLabel *m_banner;
    BrowserView *m_view;
    QSplitter *m_split;
    PreviewPanel *m_preview;
    DirectoryModel *m_model;
    SearchModel *m_search; // the view's model while search results are shown
    QWidget *m_searchBar;
    QLineEdit *m_searchText, *m_searchSize;
    QComboBox *m_searchAge;
    QToolButton *m_searchStop;
    QString m_searchError;    // what is wrong with the search asked for
    std::string m_selectName; // selected once the listing has it (openContainingFolder)
    QStringList m_history;    // URIs visited; m_historyAt is the current one
    qsizetype m_historyAt = -1;
    QString m_opening; // URI being resolved, if any
    QString m_openError;
};

} // namespace strata
