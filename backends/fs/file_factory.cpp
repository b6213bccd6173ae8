#include "backends/fs/file_factory.h"

#include "backends/fs/file_backend.h"
#include "core/storage/path.h"

namespace strata {

BackendDescription FileFactory::describe() const
{
    return {"Local folder",
            {"file:///PATH", "a plain path"},
            "The local file system.",
            {{"follow", "", "Follow symbolic links below the folder named (by default a link is itself an entry)."}},
            {{"path", "&Folder:", FormField::Kind::Folder, "an absolute path; ~/ is the home folder", {}}}};
}

Result<FormConnection> FileFactory::fromForm(const FormAnswers &answers) const
{
    auto path = form::localPath(form::answer(answers, "path"), "The folder");
    if (!path)
        return std::move(path).error();
    auto normal = normalizePath(*path);
    if (!normal)
        return Error(ErrorKind::InvalidInput, "The folder must be an absolute path, like /home/me/data");
    return FormConnection{Uri::fromLocalPath(*normal), {}, {}};
}

FormAnswers FileFactory::toForm(const Uri &uri) const
{
    return {{"path", uri.path()}};
}

Result<Target> FileFactory::locate(const Uri &uri)
{
    if (!uri.host().empty() && uri.host() != "localhost")
        return Error(ErrorKind::InvalidInput,
                     "file URIs name local paths; for a remote machine use webdav:// or s3:// instead of host '"
                         + uri.host() + "'");
    if (uri.port() || uri.hasUserInfo())
        return Error(ErrorKind::InvalidInput, "file URIs take no port or user");
    const bool follow = uri.queryValue("follow").has_value();
    return Target{follow ? "file://?follow" : "file://", uri.path()};
}

Result<std::shared_ptr<Backend>> FileFactory::create(const Uri &uri, const Target &, const ConnectionSecret &)
{
    FileBackendOptions options;
    options.followSymlinks = uri.queryValue("follow").has_value();
    return sharedBackend(FileBackend::open("/", options));
}

} // namespace strata
