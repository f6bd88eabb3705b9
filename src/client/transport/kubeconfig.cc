#include "client/transport/kubeconfig.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <boost/url/parse.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace svcplane::client::transport {
namespace {

// yaml-cpp stays inside this file: every exception becomes a Status here.
class KubeconfigParser {
 public:
  explicit KubeconfigParser(std::string path)
      : path_(std::move(path)), dir_(std::filesystem::path(path_).parent_path().string()) {}

  Result<RestConfig> Parse(const std::string& context_override) {
    auto text = ReadFileToString(path_);
    if (!text.ok()) return Error("", text.status().message());
    YAML::Node root;
    try {
      root = YAML::Load(*text);
    } catch (const YAML::Exception& e) {
      return Error("", fmt::format("invalid YAML: {}", e.what()));
    }
    if (!root.IsMap()) return Error("", "not a YAML mapping");

    std::string context_name = context_override;
    if (context_name.empty()) {
      auto cur = Scalar(root, "current-context", "current-context");
      if (!cur.ok()) return cur.status();
      context_name = *cur;
      if (context_name.empty()) {
        return Error("current-context", "not set and no context given (use --context)");
      }
    }

    std::string ctx_path;
    auto ctx = FindNamed(root, "contexts", context_name, "context", &ctx_path);
    if (!ctx.ok()) return ctx.status();
    auto cluster_name = Scalar(*ctx, "cluster", ctx_path + ".cluster");
    if (!cluster_name.ok()) return cluster_name.status();
    auto user_name = Scalar(*ctx, "user", ctx_path + ".user");
    if (!user_name.ok()) return user_name.status();
    auto ns = Scalar(*ctx, "namespace", ctx_path + ".namespace");
    if (!ns.ok()) return ns.status();

    RestConfig config;
    config.source = "kubeconfig " + path_;
    config.namespace_ = *ns;
    if (cluster_name->empty()) return Error(ctx_path + ".cluster", "required");
    SVC_RETURN_IF_ERROR(ParseCluster(root, *cluster_name, &config));
    // A context may leave the user empty (anonymous).
    if (!user_name->empty()) SVC_RETURN_IF_ERROR(ParseUser(root, *user_name, &config));
    return config;
  }

 private:
  Status Error(const std::string& field, const std::string& msg) const {
    if (field.empty()) return InvalidError(fmt::format("kubeconfig {}: {}", path_, msg));
    return InvalidError(fmt::format("kubeconfig {}: {}: {}", path_, field, msg));
  }

  // An optional string field; "" when absent.
  Result<std::string> Scalar(const YAML::Node& node, const char* key, const std::string& field) {
    const YAML::Node v = node[key];
    if (!v || v.IsNull()) return std::string();
    if (!v.IsScalar()) return Error(field, "must be a string");
    return v.Scalar();
  }

  Result<bool> Bool(const YAML::Node& node, const char* key, const std::string& field) {
    const YAML::Node v = node[key];
    if (!v || v.IsNull()) return false;
    try {
      return v.as<bool>();
    } catch (const YAML::Exception&) {
      return Error(field, fmt::format("must be true or false, got \"{}\"",
                                      v.IsScalar() ? v.Scalar() : "<non-scalar>"));
    }
  }

  // The `inner` mapping of the entry of list `list` whose name is `name`; sets *field_path to
  // e.g. "users[2].user".
  Result<YAML::Node> FindNamed(const YAML::Node& root, const char* list, const std::string& name,
                               const char* inner, std::string* field_path) {
    const YAML::Node entries = root[list];
    if (entries && !entries.IsNull() && !entries.IsSequence()) {
      return Error(list, "must be a list");
    }
    if (entries && entries.IsSequence()) {
      for (size_t i = 0; i < entries.size(); ++i) {
        const YAML::Node e = entries[i];
        const std::string at = fmt::format("{}[{}]", list, i);
        if (!e.IsMap()) return Error(at, "must be a mapping");
        auto n = Scalar(e, "name", at + ".name");
        if (!n.ok()) return n.status();
        if (*n != name) continue;
        *field_path = at + "." + inner;
        const YAML::Node body = e[inner];
        if (!body || body.IsNull()) return YAML::Node(YAML::NodeType::Map);
        if (!body.IsMap()) return Error(*field_path, "must be a mapping");
        return body;
      }
    }
    std::string singular(list);
    singular.pop_back();
    return Error(list, fmt::format("{} \"{}\" not found", singular, name));
  }

  std::string Resolve(const std::string& file) const {
    if (file.empty() || std::filesystem::path(file).is_absolute() || dir_.empty()) return file;
    return (std::filesystem::path(dir_) / file).string();
  }

  // `<key>-data` (base64) or `<key>` (a file); data wins, as in client-go.
  Result<std::string> DataOrFile(const YAML::Node& node, const std::string& key,
                                 const std::string& at) {
    const std::string data_key = key + "-data";
    auto data = Scalar(node, data_key.c_str(), at + "." + data_key);
    if (!data.ok()) return data.status();
    if (!data->empty()) {
      auto decoded = Base64Decode(*data);
      if (!decoded.ok()) return Error(at + "." + data_key, decoded.status().message());
      return decoded;
    }
    auto file = Scalar(node, key.c_str(), at + "." + key);
    if (!file.ok()) return file.status();
    if (file->empty()) return std::string();
    auto content = ReadFileToString(Resolve(*file));
    if (!content.ok()) return Error(at + "." + key, content.status().message());
    return content;
  }

  Status ParseCluster(const YAML::Node& root, const std::string& name, RestConfig* config) {
    std::string at;
    auto cluster = FindNamed(root, "clusters", name, "cluster", &at);
    if (!cluster.ok()) return cluster.status();
    auto server = Scalar(*cluster, "server", at + ".server");
    if (!server.ok()) return server.status();
    if (server->empty()) return Error(at + ".server", "required");
    if (!server->starts_with("https://") && !server->starts_with("http://")) {
      return Error(at + ".server", fmt::format("\"{}\" is not an http(s) URL", *server));
    }
    config->host = *server;
    while (config->host.ends_with('/')) config->host.pop_back();
    auto sni = Scalar(*cluster, "tls-server-name", at + ".tls-server-name");
    if (!sni.ok()) return sni.status();
    config->tls_server_name = *sni;
    auto insecure = Bool(*cluster, "insecure-skip-tls-verify", at + ".insecure-skip-tls-verify");
    if (!insecure.ok()) return insecure.status();
    config->insecure_skip_tls_verify = *insecure;
    auto ca = DataOrFile(*cluster, "certificate-authority", at);
    if (!ca.ok()) return ca.status();
    config->ca_pem = *ca;
    config->ca_data_base64 = Base64Encode(*ca);
    if (config->insecure_skip_tls_verify && !config->ca_pem.empty()) {
      // client-go refuses this combination too.
      return Error(at, "specifying a root certificates file with the insecure flag is not allowed");
    }
    return Status::Ok();
  }

  Status ParseUser(const YAML::Node& root, const std::string& name, RestConfig* config) {
    std::string at;
    auto user = FindNamed(root, "users", name, "user", &at);
    if (!user.ok()) return user.status();
    auto token = Scalar(*user, "token", at + ".token");
    if (!token.ok()) return token.status();
    config->bearer_token = *token;
    auto token_file = Scalar(*user, "tokenFile", at + ".tokenFile");
    if (!token_file.ok()) return token_file.status();
    if (!token_file->empty()) {
      config->bearer_token_file = Resolve(*token_file);
      // Read once now so a broken path is reported at load time, naming the field.
      auto content = ReadFileToString(config->bearer_token_file);
      if (!content.ok()) return Error(at + ".tokenFile", content.status().message());
    }
    auto cert = DataOrFile(*user, "client-certificate", at);
    if (!cert.ok()) return cert.status();
    auto key = DataOrFile(*user, "client-key", at);
    if (!key.ok()) return key.status();
    if (cert->empty() != key->empty()) {
      return Error(at, "client-certificate and client-key must be given together");
    }
    config->client_cert_pem = *cert;
    config->client_key_pem = *key;
    if ((*user)["auth-provider"]) {
      return Error(at + ".auth-provider",
                   "auth-provider plugins are not supported; use an exec credential plugin");
    }
    if (const YAML::Node exec = (*user)["exec"]; exec && !exec.IsNull()) {
      auto parsed = ParseExec(exec, at + ".exec");
      if (!parsed.ok()) return parsed.status();
      config->exec = std::move(*parsed);
    }
    return Status::Ok();
  }

  Result<ExecConfig> ParseExec(const YAML::Node& exec, const std::string& at) {
    if (!exec.IsMap()) return Error(at, "must be a mapping");
    ExecConfig out;
    auto command = Scalar(exec, "command", at + ".command");
    if (!command.ok()) return command.status();
    if (command->empty()) return Error(at + ".command", "required");
    // client-go resolves a relative command containing a slash against the kubeconfig's dir.
    out.command = command->find('/') != std::string::npos ? Resolve(*command) : *command;
    auto api_version = Scalar(exec, "apiVersion", at + ".apiVersion");
    if (!api_version.ok()) return api_version.status();
    if (*api_version != "client.authentication.k8s.io/v1" &&
        *api_version != "client.authentication.k8s.io/v1beta1") {
      return Error(at + ".apiVersion",
                   fmt::format("\"{}\" is not supported (want client.authentication.k8s.io/v1 or "
                               "v1beta1)",
                               *api_version));
    }
    out.api_version = *api_version;
    if (const YAML::Node args = exec["args"]; args && !args.IsNull()) {
      if (!args.IsSequence()) return Error(at + ".args", "must be a list");
      for (size_t i = 0; i < args.size(); ++i) {
        if (!args[i].IsScalar())
          return Error(fmt::format("{}.args[{}]", at, i), "must be a string");
        out.args.push_back(args[i].Scalar());
      }
    }
    if (const YAML::Node env = exec["env"]; env && !env.IsNull()) {
      if (!env.IsSequence()) return Error(at + ".env", "must be a list");
      for (size_t i = 0; i < env.size(); ++i) {
        const std::string e_at = fmt::format("{}.env[{}]", at, i);
        if (!env[i].IsMap()) return Error(e_at, "must be a mapping");
        auto n = Scalar(env[i], "name", e_at + ".name");
        if (!n.ok()) return n.status();
        if (n->empty()) return Error(e_at + ".name", "required");
        auto v = Scalar(env[i], "value", e_at + ".value");
        if (!v.ok()) return v.status();
        out.env.emplace_back(*n, *v);
      }
    }
    auto pci = Bool(exec, "provideClusterInfo", at + ".provideClusterInfo");
    if (!pci.ok()) return pci.status();
    out.provide_cluster_info = *pci;
    auto hint = Scalar(exec, "installHint", at + ".installHint");
    if (!hint.ok()) return hint.status();
    out.install_hint = *hint;
    return out;
  }

  const std::string path_;
  const std::string dir_;
};

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

}  // namespace

Result<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    std::string msg = fmt::format("open {}: {}", path, std::strerror(err));
    return err == ENOENT ? NotFoundError(std::move(msg)) : InternalError(std::move(msg));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::string> Base64Decode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else if (c == '=' || std::isspace(static_cast<unsigned char>(c))) {
      continue;
    } else {
      return InvalidError(fmt::format("illegal base64 data: unexpected character '{}'", c));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string Base64Encode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t n = uint8_t(in[i]) << 16;
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context_override) {
  return KubeconfigParser(path).Parse(context_override);
}

Status OverrideServers(const std::vector<std::string>& servers, RestConfig* config) {
  std::vector<std::string> urls;
  for (const std::string& flag : servers) {
    std::string_view rest(flag);
    while (true) {
      const size_t comma = rest.find(',');
      const std::string url = Trim(std::string(rest.substr(0, comma)));
      auto parsed = boost::urls::parse_uri(url);
      if (!parsed || (parsed->scheme() != "https" && parsed->scheme() != "http") ||
          parsed->host().empty()) {
        return InvalidError(fmt::format("--server \"{}\": want http(s)://host[:port][/path]", url));
      }
      urls.push_back(url);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (urls.empty()) return Status::Ok();
  config->host = urls.front();
  config->fallback_hosts.assign(urls.begin() + 1, urls.end());
  return Status::Ok();
}

Result<RestConfig> InClusterConfig(const InClusterPaths& paths) {
  std::string host = paths.host;
  std::string port = paths.port;
  if (host.empty()) {
    const char* h = std::getenv("KUBERNETES_SERVICE_HOST");
    host = h ? h : "";
  }
  if (port.empty()) {
    const char* p = std::getenv("KUBERNETES_SERVICE_PORT");
    port = p ? p : "";
  }
  if (host.empty() || port.empty()) {
    return UnavailableError(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig config;
  config.source = "in-cluster config";
  // IPv6 literals need brackets in a URL (net.JoinHostPort).
  config.host = host.find(':') != std::string::npos ? fmt::format("https://[{}]:{}", host, port)
                                                    : fmt::format("https://{}:{}", host, port);
  auto token = ReadFileToString(paths.token_file);
  if (!token.ok()) return token.status();
  config.bearer_token = Trim(*token);
  config.bearer_token_file = paths.token_file;
  auto ca = ReadFileToString(paths.ca_file);
  if (!ca.ok()) return ca.status();
  config.ca_pem = *ca;
  config.ca_data_base64 = Base64Encode(*ca);
  if (auto ns = ReadFileToString(paths.namespace_file); ns.ok()) config.namespace_ = Trim(*ns);
  return config;
}

}  // namespace svcplane::client::transport
