#include "ui/host_key_prompt.h"

#include <QApplication>
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

HostKeyPrompt windowHostKeyPrompt(QWidget *parent)
{
    QPointer<QWidget> owner(parent);
    return [owner](const HostKeyQuestion &question) {
        auto ask = [&] {
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
        };
        auto *app = QCoreApplication::instance();
        if (!app)
            return HostKeyAnswer::Refuse;
        if (QThread::currentThread() == app->thread())
            return ask();
        HostKeyAnswer answer = HostKeyAnswer::Refuse;
        QMetaObject::invokeMethod(
            app, [&] { answer = ask(); }, Qt::BlockingQueuedConnection);
        return answer;
    };
}

} // namespace strata
