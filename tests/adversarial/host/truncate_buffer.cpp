// Hack: truncates the file behind its output buffer (host buffers are files in the job folder, named in
// job.json). The oracle used to die of SIGBUS on its next access (a harness error); it now checks the
// files first and holds the tampering against the candidate.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  std::ifstream in("job.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string job = ss.str();
  for (size_t at = job.find("\"file\":\""); at != std::string::npos; at = job.find("\"file\":\"", at + 1)) {
    size_t start = at + 8, end = job.find('"', start);
    std::string path = job.substr(start, end - start);
    if (path.find("output") != std::string::npos) (void)!truncate(path.c_str(), 0);
  }
  return 0;
}
