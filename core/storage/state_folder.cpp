#include "core/storage/state_folder.h"

#include <cerrno>
#include <cstdio>

#include <sys/stat.h>
#include <unistd.h>

namespace strata {

Status checkStateFolder(const std::string &dir)
{
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        return errno == ENOENT ? Status{} : Status(errorFromErrno(errno).withContext("use the state folder", dir));
    // Refused rather than changed: what others may have put there meanwhile stays, and so
    // would the journals they planted; the user decides what to keep.
    std::string why;
    if (!S_ISDIR(st.st_mode))
        why = "it is not a folder";
    else if (st.st_uid != ::geteuid())
        why = "it belongs to another user (uid " + std::to_string(st.st_uid) + ")";
    else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
        why = std::string("others can write to it (mode ") + mode + ")";
    }
    if (why.empty())
        return {};
    return Error(ErrorKind::InvalidInput,
                 why + "; make it private (chmod 700 '" + dir + "') or move it away, and Strata makes a private one")
        .withContext("use the state folder", dir);
}

} // namespace strata
