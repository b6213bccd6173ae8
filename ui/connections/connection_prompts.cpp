#include "ui/connections/connection_prompts.h"

#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QThread>

namespace strata {

QString hostKeyQuestionText(const HostKeyQuestion &question)
{
    return QApplication::translate("HostKeyPrompt",
                                   "<p>Strata has never connected to <b>%1</b>. Its %2 key has the fingerprint</p>"
                                   "<p><tt>%3</tt></p>"
                                   "<p>Connect only if this is the fingerprint the server's administrator gave you "
                                   "(on the server: <tt>ssh-keygen -lf</tt> on its host key). Trusting it adds it to "
                                   "<tt>%4</tt>, where ssh finds it too.</p>")
        .arg(QString::fromStdString(question.host).toHtmlEscaped(),
             QString::fromStdString(question.keyType).toHtmlEscaped(),
             QString::fromStdString(question.fingerprint).toHtmlEscaped(),
             QString::fromStdString(question.knownHosts).toHtmlEscaped());
}

namespace {

// Runs `ask` on the GUI thread and waits for it (directly when already there).
template <typename Answer, typename Ask>
Answer onGuiThread(Answer fallback, Ask ask)
{
    auto *app = QCoreApplication::instance();
    if (!app)
        return fallback;
    if (QThread::currentThread() == app->thread())
        return ask();
    Answer answer = fallback;
    QMetaObject::invokeMethod(
        app, [&] { answer = ask(); }, Qt::BlockingQueuedConnection);
    return answer;
}

} // namespace

ConnectionPrompts windowPrompts(QWidget *parent)
{
    QPointer<QWidget> owner(parent);
    ConnectionPrompts prompts;
    prompts.hostKey = [owner](const HostKeyQuestion &question) {
        return onGuiThread(HostKeyAnswer::Refuse, [&] {
            QMessageBox box(owner);
            box.setObjectName(QStringLiteral("hostKeyPrompt"));
            box.setIcon(QMessageBox::Warning);
            box.setWindowTitle(QApplication::translate("HostKeyPrompt", "Unknown server"));
            box.setTextFormat(Qt::RichText);
            box.setText(hostKeyQuestionText(question));
            auto *trust =
                box.addButton(QApplication::translate("HostKeyPrompt", "&Trust and Connect"), QMessageBox::AcceptRole);
            trust->setObjectName(QStringLiteral("trust"));
            auto *cancel = box.addButton(QMessageBox::Cancel);
            box.setDefaultButton(cancel);
            box.setEscapeButton(cancel);
            box.exec();
            return box.clickedButton() == trust ? HostKeyAnswer::Accept : HostKeyAnswer::Refuse;
        });
    };
    prompts.passphrase = [owner](const PassphraseQuestion &question) {
        return onGuiThread(std::optional<std::string>(), [&]() -> std::optional<std::string> {
            QInputDialog dialog(owner);
            dialog.setObjectName(QStringLiteral("passphrasePrompt"));
            dialog.setWindowTitle(QApplication::translate("HostKeyPrompt", "Key passphrase"));
            dialog.setLabelText(
                QApplication::translate("HostKeyPrompt", "The passphrase of %1, to log in as %2:")
                    .arg(QString::fromStdString(question.keyFile), QString::fromStdString(question.login)));
            dialog.setTextEchoMode(QLineEdit::Password);
            if (dialog.exec() != QDialog::Accepted)
                return std::nullopt;
            return dialog.textValue().toStdString();
        });
    };
    return prompts;
}

} // namespace strata
