// Writes strata(1) and the bash and zsh completions from the command table that parses
// the command line (strata::cli::commands()) and the backends' descriptions, at build
// time: the documentation cannot name an option the program does not have, nor miss one
// it has.
// Usage: strata-docs man|bash|zsh OUTPUT
#include "app/cli/cli.h"
#include "app/cli/locations_help.h"
#include "app/version.h"
#include "backends/builtin_backends.h"
#include "core/storage/registry.h"

#include <QFile>
#include <QRegularExpression>
#include <QStringList>

#include <cstdio>
#include <vector>

namespace {

using strata::cli::CommandSpec;
using strata::cli::Option;

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

using strata::cli::commonOptions; // every command also takes these (added by strata::cli::run)

QString dashed(const QString &name)
{
    return (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
}

QString roff(const QString &text)
{
    return q(strata::cli::roff(text.toStdString()));
}

QString manOption(const Option &o)
{
    QStringList names;
    for (const auto &n : o.names)
        // Option dashes are minus signs, so that searching and copying from the page work.
        names << QStringLiteral("\\fB%1\\fR").arg(dashed(q(n)).replace(QLatin1Char('-'), QStringLiteral("\\-")));
    QString head = names.join(QStringLiteral(", "));
    if (!o.valueName.empty())
        head += QStringLiteral(" \\fI%1\\fR").arg(roff(q(o.valueName)));
    return QStringLiteral(".TP\n%1\n%2\n").arg(head, roff(q(o.description)));
}

QString manPage()
{
    QString t;
    t += QStringLiteral(".TH STRATA 1 \"\" \"Strata %1\" \"User Commands\"\n").arg(QStringLiteral(STRATA_VERSION));
    t += QStringLiteral(".SH NAME\nstrata \\- browse, move and measure storage\n");
    t += QStringLiteral(
        ".SH SYNOPSIS\n.B strata\n.br\n"
        ".B strata open\n.RB [ \\-\\-benchmarks | \\-\\-usage ]\n.RI [ FOLDER | IMAGE | RESULTS.bench ...]\n.br\n"
        ".B strata\n.RB [ \\-v ]\n.I COMMAND\n.RI [ OPTIONS ] \" ARGS\" ...\n.br\n"
        ".B strata\n.BR \\-\\-version \" | \" \\-\\-help\n");
    t += QStringLiteral(
        ".SH DESCRIPTION\nStrata browses local disks, in-memory stores, S3-compatible object storage, WebDAV "
        "servers and NBD disk images, copies files and whole images between any two of them, and measures "
        "them with benchmarks compared by sound statistics.\n.PP\nWithout a command, \\fBstrata\\fR opens the "
        "desktop app; \\fBstrata open\\fR opens it on the folders, storage URIs, disk images and Go benchmark files "
        "given. "
        "Every command below works without a display.\n"
        ".SS \"strata open [OPTIONS] [FOLDER|IMAGE|URI|RESULTS.bench...]\"\n"
        "A folder or a storage URI (\\fBs3://\\fR, \\fBwebdav://\\fR, \\fBnbd://\\fR, \\fBmemory://\\fR) opens in the "
        "left pane, a Go benchmark file (\\fI*.bench\\fR, or text starting with "
        "\\fBgoos:\\fR or \\fBBenchmark\\fR) on the Benchmarks page, any other file (a disk image) in "
        "the left pane's view of its folder. The desktop entry runs this.\n");
    for (const auto &o : strata::cli::openCommand().options)
        t += manOption(o);
    t += QStringLiteral(".SH GLOBAL OPTIONS\n");
    for (const auto &o : commonOptions())
        t += manOption(o);
    t += QStringLiteral(".TP\n\\fB\\-\\-version\\fR\nPrint the version.\n");
    t += QStringLiteral(".SH COMMANDS\nEvery command also takes the global options \\fB\\-h\\fR, "
                        "\\fB\\-\\-help\\fR, \\fB\\-v\\fR, \\fB\\-\\-verbose\\fR and "
                        "\\fB\\-\\-accept\\-new\\-host\\-key\\fR.\n");
    for (const CommandSpec &c : strata::cli::commands()) {
        t += QStringLiteral(".SS \"strata %1 [OPTIONS] %2\"\n%3\n")
                 .arg(q(c.name), roff(q(c.arguments)), roff(q(c.summary)));
        for (const auto &o : c.options)
            t += manOption(o);
    }
    {
        // Every backend registered, as it describes itself.
        strata::Registry registry;
        strata::registerBuiltinBackends(registry);
        t += q(strata::cli::locationsManSection(registry));
    }
    t += QStringLiteral(
        ".SH ENVIRONMENT\n.TP\n\\fBAWS_ACCESS_KEY_ID\\fR, \\fBAWS_SECRET_ACCESS_KEY\\fR, \\fBAWS_SESSION_TOKEN\\fR, "
        "\\fBAWS_PROFILE\\fR\nS3 credentials (else \\fI~/.aws/credentials\\fR).\n"
        ".TP\n\\fBSTRATA_WEBDAV_HOST\\fR, \\fBSTRATA_WEBDAV_USER\\fR, \\fBSTRATA_WEBDAV_PASSWORD\\fR\nWebDAV "
        "credentials, "
        "sent only to the server STRATA_WEBDAV_HOST names (host or host:port); else a machine entry of "
        "\\fI~/.netrc\\fR.\n"
        ".TP\n\\fBSTRATA_FTP_HOST\\fR, \\fBSTRATA_FTP_USER\\fR, \\fBSTRATA_FTP_PASSWORD\\fR\nFTP credentials, sent "
        "only "
        "to the server STRATA_FTP_HOST names; else a machine entry of \\fI~/.netrc\\fR.\n"
        ".TP\n\\fBSTRATA_SFTP_HOST\\fR, \\fBSTRATA_SFTP_PASSWORD\\fR\nAn SSH password, or the passphrase of a "
        "key, used only for the server STRATA_SFTP_HOST names (host or host:port, as the URI writes it).\n"
        ".TP\n\\fBSTRATA_STATE_DIR\\fR\nWhere transfer journals are kept (default \\fI~/.local/state/strata\\fR); "
        "refused when another user owns it or others can write to it.\n"
        ".TP\n\\fBhttp_proxy\\fR, \\fBhttps_proxy\\fR, \\fBall_proxy\\fR, \\fBno_proxy\\fR\nHTTP proxies, as libcurl "
        "reads them.\n");
    t += QStringLiteral(
        ".SH JSON OUTPUT\nWith \\fB\\-\\-json\\fR, names and paths are exact. Each is given twice: as text "
        "(\\fBname\\fR, \\fBpath\\fR, \\fBtarget\\fR, \\fBroot\\fR; a byte that is not UTF\\-8 shows as U+FFFD) "
        "and byte for byte (\\fBname_raw\\fR, \\fBpath_raw\\fR, \\fBtarget_raw\\fR, \\fBroot_raw\\fR: the same text "
        "with \\fB%\\fR and every byte that is not UTF\\-8 written as \\fB%\\fR\\fIXX\\fR, so "
        "\\fBold%FF.log\\fR is not \\fBold\\[uFFFD].log\\fR). A \\fBuri\\fR is percent\\-encoded the same way "
        "and every command takes it back:\n.nf\n"
        "strata ls \\-\\-json DIR | jq \\-r '.entries[] | select(.name_raw == \"old%FF.log\") | .uri' | xargs \\-d "
        "'\\\\n' strata "
        "rm\n"
        ".fi\n");
    t += QStringLiteral(".SH EXIT STATUS\n0 success, 1 an operation failed, 2 the command line was wrong, "
                        "130 a transfer was interrupted and can be resumed by running the same command again.\n");
    t += QStringLiteral(
        ".SH EXAMPLES\n.nf\nstrata ls \\-l memory://demo/\nstrata cp \\-r \\-\\-verify ~/photos /mnt/backup/\n"
        "strata du \\-\\-top 10 ~\nstrata bench memory://bench/ \\-\\-count 3\n.fi\n");
    t += QStringLiteral(".SH SEE ALSO\n.BR nbdcopy (1),\n.BR rclone (1)\n");
    return t;
}

QString allNames(const std::vector<Option> &options)
{
    QStringList names;
    for (const auto &o : options)
        for (const auto &n : o.names)
            names << dashed(q(n));
    return names.join(QLatin1Char(' '));
}

QString valueNames(const std::vector<Option> &options)
{
    QStringList names;
    for (const auto &o : options)
        if (!o.valueName.empty())
            for (const auto &n : o.names)
                names << dashed(q(n));
    return names.join(QLatin1Char('|'));
}

// Every registered scheme and the ?options its URIs take, as completion words: "NAME=" for
// an option with a value, "NAME" for a flag, "tls-" for a family ("tls-*").
struct SchemeWords {
    QString scheme;
    QStringList options;
};

std::vector<SchemeWords> schemeWords()
{
    strata::Registry registry;
    strata::registerBuiltinBackends(registry);
    std::vector<SchemeWords> all;
    for (const std::string &scheme : registry.schemes()) {
        SchemeWords words{q(scheme), {}};
        for (const strata::BackendOption &o : registry.factory(scheme)->describe().options) {
            QString name = q(o.name);
            if (name.endsWith(QLatin1Char('*')))
                name.chop(1);
            else if (!o.value.empty())
                name += QLatin1Char('=');
            words.options << name;
        }
        all.push_back(std::move(words));
    }
    return all;
}

// The shell function both completions share the shape of: a location is a file, a scheme
// ("s3://") while no '/' is typed, or after "SCHEME://...?" or "&" one of that scheme's
// options.
QString schemeList()
{
    QStringList list;
    for (const SchemeWords &w : schemeWords())
        list << w.scheme + QStringLiteral("://");
    return list.join(QLatin1Char(' '));
}

QString optionCases(const QString &indent)
{
    QString cases;
    for (const SchemeWords &w : schemeWords())
        if (!w.options.isEmpty())
            cases += QStringLiteral("%1'%2') opts=(%3) ;;\n").arg(indent, w.scheme, w.options.join(QLatin1Char(' ')));
    return cases;
}

QString bashCompletion()
{
    QStringList names{QStringLiteral("open")};
    QString cases;
    for (const CommandSpec &c : strata::cli::commands()) {
        names << q(c.name);
        const QString values = valueNames(c.options);
        cases += QStringLiteral("    %1) opts='%2 %3'; values='%4' ;;\n")
                     .arg(q(c.name), allNames(c.options), allNames(commonOptions()),
                          values.isEmpty() ? QStringLiteral("-") : values);
    }
    return QStringLiteral(
               "# bash completion for strata (generated from its command table)\n"
               "_strata() {\n"
               "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
               "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
               "    [[ ${COMP_WORDS[i]} != -* ]] && { cmd=${COMP_WORDS[i]}; break; }\n"
               "  done\n"
               "  if [[ -z $cmd ]]; then\n"
               "    COMPREPLY=($(compgen -W '%1 -v --verbose --accept-new-host-key --version -h --help' -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  local opts= values=-\n"
               "  case $cmd in\n%2"
               "    open) opts='--benchmarks --usage' ;;\n"
               "    *) return ;;\n"
               "  esac\n"
               "  # An option's value (a number, a list) has no completion.\n"
               "  if [[ \"|$values|\" == *\"|$prev|\"* ]]; then\n"
               "    return\n"
               "  fi\n"
               "  if [[ $cur == -* ]]; then\n"
               "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
               "  else\n"
               "    _strata_location\n"
               "  fi\n"
               "}\n"
               "# A location: a scheme while no '/' is typed (and files), that scheme's ?options after\n"
               "# '?' or '&', else files. ':' '=' and '&' break bash's words, so the whole word is\n"
               "# read from the line and the answers given relative to bash's current piece.\n"
               "_strata_location() {\n"
               "  local word=$cur\n"
               "  [[ -n ${COMP_LINE-} ]] && { word=${COMP_LINE:0:COMP_POINT}; word=${word##*[[:space:]]}; }\n"
               "  local pre=${word%\"$cur\"} c list=() opts=()\n"
               "  if [[ $word == *://*[?\\&]* ]]; then\n"
               "    local base=${word%[?&]*}\n"
               "    local sep=${word:${#base}:1}\n"
               "    case ${word%%:*} in\n%3"
               "    esac\n"
               "    for c in \"${opts[@]}\"; do list+=(\"$base$sep$c\"); done\n"
               "  elif [[ $word != */* && $word != .* && $word != \\~* ]]; then\n"
               "    list=(%4)\n"
               "  fi\n"
               "  COMPREPLY=()\n"
               "  for c in \"${list[@]}\"; do [[ $c == \"$word\"* ]] && COMPREPLY+=(\"${c#\"$pre\"}\"); done\n"
               "  if ((${#COMPREPLY[@]})); then\n"
               "    compopt -o nospace 2>/dev/null\n"
               "    [[ $word == *://* ]] && return\n"
               "  fi\n"
               "  local files\n"
               "  mapfile -t files < <(compgen -f -- \"$cur\")\n"
               "  ((${#files[@]})) && compopt -o filenames +o nospace 2>/dev/null\n"
               "  COMPREPLY+=(\"${files[@]}\")\n"
               "}\n"
               "complete -F _strata strata\n")
        .arg(names.join(QLatin1Char(' ')), cases, optionCases(QStringLiteral("      ")), schemeList());
}

// zsh's _arguments and _describe give ':' '[' ']' and quotes meanings of their own.
QString zshText(QString text)
{
    static const QRegularExpression special(QStringLiteral("([:\\[\\]\\\\])"));
    text.replace(special, QStringLiteral("\\\\1"));
    text.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return text;
}

QString zshCompletion()
{
    QString describe;
    QString cases;
    describe += QStringLiteral("    'open:Open the desktop app on folders, disk images or benchmark files'\n");
    for (const CommandSpec &c : strata::cli::commands()) {
        describe += QStringLiteral("    '%1:%2'\n").arg(q(c.name), zshText(q(c.summary)));
        QString specs;
        std::vector<Option> options = c.options;
        options.insert(options.end(), commonOptions().begin(), commonOptions().end());
        for (const auto &o : options) {
            for (const auto &n : o.names) {
                specs += QStringLiteral(" \\\n        '%1[%2]").arg(dashed(q(n)), zshText(q(o.description)));
                if (!o.valueName.empty())
                    specs += QStringLiteral(":%1:").arg(zshText(q(o.valueName)));
                specs += QLatin1Char('\'');
            }
        }
        cases += QStringLiteral("    %1)\n      _arguments -s%2 \\\n        '*:location:_strata_location' ;;\n")
                     .arg(q(c.name), specs);
    }
    return QStringLiteral("#compdef strata\n"
                          "# zsh completion for strata (generated from its command table)\n"
                          "# A location: a scheme while no '/' is typed (and files), that scheme's ?options\n"
                          "# after '?' or '&', else files.\n"
                          "_strata_location() {\n"
                          "  local scheme=${PREFIX%%:*}\n"
                          "  local -a opts\n"
                          "  if compset -P '*://*[?&]'; then\n"
                          "    case $scheme in\n%3"
                          "    esac\n"
                          "    compadd -S '' -- $opts\n"
                          "  elif [[ $PREFIX != */* && $PREFIX != .* && $PREFIX != \\~* ]]; then\n"
                          "    compadd -S '' -- %4\n"
                          "    _files\n"
                          "  else\n"
                          "    _files\n"
                          "  fi\n"
                          "}\n"
                          "_strata() {\n"
                          "  local -a commands\n"
                          "  commands=(\n%1  )\n"
                          "  if (( CURRENT == 2 )); then\n"
                          "    _describe -t commands 'strata command' commands\n"
                          "    return\n"
                          "  fi\n"
                          "  local cmd=$words[2]\n"
                          "  shift words; (( CURRENT-- ))\n"
                          "  case $cmd in\n%2"
                          "    open)\n      _arguments '--benchmarks[Show the Benchmarks page]' "
                          "'--usage[Show the disk usage of the home folder]' '*:file:_files' ;;\n"
                          "  esac\n"
                          "}\n"
                          "_strata \"$@\"\n")
        .arg(describe, cases, optionCases(QStringLiteral("      ")), schemeList());
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: strata-docs man|bash|zsh OUTPUT\n");
        return 2;
    }
    const QString kind = QString::fromLocal8Bit(argv[1]);
    QString text;
    if (kind == QLatin1String("man"))
        text = manPage();
    else if (kind == QLatin1String("bash"))
        text = bashCompletion();
    else if (kind == QLatin1String("zsh"))
        text = zshCompletion();
    else {
        std::fprintf(stderr, "strata-docs: unknown kind '%s'\n", argv[1]);
        return 2;
    }
    QFile out(QString::fromLocal8Bit(argv[2]));
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(text.toUtf8()) < 0) {
        std::fprintf(stderr, "strata-docs: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
