// Campaign folders have one writer: `fuzz` holds an exclusive flock on
// DIR/campaign.lock while it runs (released when the process and its
// workers exit, even by kill -9); `merge` holds shared locks on the shards
// it reads and an exclusive one on the folder it writes.
#pragma once
#include <string>

namespace af::tools {

// Takes the lock of `dir` for the rest of the process (an exclusive one
// creates the folder and lock file; a shared one on a folder without a
// lock file succeeds); false, with a message naming the holder on stderr, when another
// process holds it. `who` names the command in the message.
bool lock_folder(const std::string& dir, bool shared, const char* who);

}  // namespace af::tools
