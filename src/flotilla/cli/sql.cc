// `flotilla sql`: runs SQL from the command line, a file, or an interactive shell.
#include <editline/readline.h>
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "flotilla/cli/commands.h"
#include "flotilla/cli/signals.h"
#include "flotilla/io/dataset/dataset_writer.h"
#include "flotilla/io/format_writer.h"
#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/stream.h"
#include "flotilla/sql/session.h"

namespace flotilla::cli {
namespace {

// Standard output as a stream (a pipe or socket cannot be reopened by path).
class StdoutStream final : public io::OutputStream {
 public:
  Status Write(const void* data, int64_t size) override {
    if (std::fwrite(data, 1, static_cast<size_t>(size), stdout) != static_cast<size_t>(size)) {
      return Status::IOError("cannot write to standard output");
    }
    written_ += size;
    return Status::OK();
  }
  int64_t Tell() const override { return written_; }
  Status Close() override {
    return std::fflush(stdout) == 0 ? Status::OK()
                                    : Status::IOError("cannot write to standard output");
  }

 private:
  int64_t written_ = 0;
};

// A csv or json writer to stdout, or to --output's hidden temporary name (io/fs/atomic_write.h):
// the file appears under its name only when complete (Commit), and a failed query leaves
// nothing (Discard).
Result<std::unique_ptr<io::FormatWriter>> OpenWriter(const SchemaPtr& schema,
                                                     const SqlOptions& options) {
  std::unique_ptr<io::OutputStream> stream;
  if (options.output.empty()) {
    stream = std::make_unique<StdoutStream>();
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(stream,
                              io::FileOutputStream::Open(io::TemporaryPathFor(options.output)));
  }
  io::DatasetWriteOptions format;
  FLOTILLA_ASSIGN_OR_RETURN(format.format, io::ParseFileFormat(options.format));
  return io::OpenFormatWriter(std::move(stream), schema, format);
}

Status Commit(const SqlOptions& options) {
  if (options.output.empty()) return Status::OK();
  const std::string temp = io::TemporaryPathFor(options.output);
  std::error_code ec;
  std::filesystem::rename(temp, options.output, ec);
  if (!ec) return Status::OK();
  std::filesystem::remove(temp, ec);
  return Status::IOError("cannot write '" + options.output + "': " + ec.message());
}

void Discard(const SqlOptions& options) {
  std::error_code ec;
  if (!options.output.empty()) std::filesystem::remove(io::TemporaryPathFor(options.output), ec);
}

Status WriteRows(const RecordBatch& batch, const SqlOptions& options) {
  if (options.format == "table") {
    const std::string text = FormatTable(*batch.schema(), {batch}, options.table);
    if (options.output.empty()) {
      fmt::print("{}", text);
      return Status::OK();
    }
    return io::WriteFileAtomically(options.output, [&](std::unique_ptr<io::OutputStream> out) {
      FLOTILLA_RETURN_NOT_OK(out->Write(text.data(), static_cast<int64_t>(text.size())));
      return out->Close();
    });
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, OpenWriter(batch.schema(), options));
  Status st = writer->Write(batch);
  if (st.ok()) st = writer->Close();
  if (!st.ok()) {
    Discard(options);
    return st;
  }
  return Commit(options);
}

Status Print(const sql::StatementResult& result, const SqlOptions& options) {
  if (result.text) {
    const Array& lines = result.batch.column(0);
    for (int64_t i = 0; i < lines.length(); ++i)
      fmt::print("{}\n", lines.GetView(i));
    return Status::OK();
  }
  if (result.batch.schema() == nullptr || result.batch.num_columns() == 0) {
    if (!result.message.empty()) fmt::print(stderr, "{}\n", result.message);
    return Status::OK();
  }
  return WriteRows(result.batch, options);
}

// One line of input: with line editing and history on a terminal, plain reads otherwise.
class LineReader {
 public:
  LineReader() : tty_(isatty(STDIN_FILENO)) {
    if (!tty_) return;
    if (const char* home = std::getenv("HOME")) {
      history_ = (std::filesystem::path(home) / ".flotilla_history").string();
      read_history(history_.c_str());
    }
  }
  ~LineReader() {
    if (tty_ && !history_.empty()) write_history(history_.c_str());
  }
  bool tty() const { return tty_; }

  bool Read(const char* prompt, std::string* line) {
    if (!tty_) return static_cast<bool>(std::getline(std::cin, *line));
    char* text = readline(prompt);
    if (text == nullptr) return false;
    *line = text;
    std::free(text);
    if (line->find_first_not_of(" \t") != std::string::npos) add_history(line->c_str());
    return true;
  }

 private:
  bool tty_;
  std::string history_;
};

constexpr const char* kShellHelp =
    ".help              this list\n"
    ".quit, .exit       leave the shell (Ctrl-D too)\n"
    ".mode MODE         print results as table (also box, duckbox), csv or json\n"
    ".timer on|off      print each statement's run time\n"
    ".tables            the tables and views\n"
    ".schema [NAME]     the columns of a table or view (all when no name)\n"
    ".read FILE         run the statements in FILE\n";

// The shell: statements end with ';' at the end of a line; lines starting with '.' between
// statements are commands, as in DuckDB's and SQLite's shells.
class Shell {
 public:
  Shell(sql::Session* session, SqlOptions options)
      : session_(session), options_(std::move(options)), timer_(options_.timer) {}

  // Errors are printed and the shell goes on (on a terminal) or stops with exit code 1 (reading
  // a script from stdin).
  int Run() {
    if (reader_.tty()) {
      fmt::print(stderr,
                 "Flotilla SQL shell. End statements with ';'; .help lists the commands; quit "
                 "with Ctrl-D or .quit.\n");
    }
    std::string buffer, line;
    while (reader_.Read(buffer.empty() ? "flotilla> " : "     ...> ", &line)) {
      const size_t first = line.find_first_not_of(" \t");
      if (buffer.empty() && first != std::string::npos && line[first] == '.') {
        const Command done = RunCommand(line.substr(first));
        if (done == Command::kQuit) break;
        if (done == Command::kFailed && !reader_.tty()) return 1;
        continue;
      }
      if (buffer.empty() && line == "\\q") break;
      buffer += line + "\n";
      const size_t last = line.find_last_not_of(" \t\r");
      if (last == std::string::npos || line[last] != ';') continue;
      if (!Execute(&buffer) && !reader_.tty()) return 1;
    }
    if (buffer.find_first_not_of(" \t\r\n") != std::string::npos && !Execute(&buffer)) return 1;
    return 0;
  }

 private:
  enum class Command { kDone, kFailed, kQuit };

  bool Execute(std::string* text) {
    const auto start = std::chrono::steady_clock::now();
    auto result = session_->Execute(*text);
    text->clear();
    if (!result.ok()) {
      fmt::print(stderr, "Error: {}\n", result.status().message());
      return false;
    }
    auto printed = Print(*result, options_);
    if (!printed.ok()) fmt::print(stderr, "Error: {}\n", printed.message());
    if (timer_) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      fmt::print("Run Time (s): real {:.3f}\n", took.count());
    }
    return printed.ok();
  }

  Command Fail(const std::string& message) {
    fmt::print(stderr, "Error: {}\n", message);
    return Command::kFailed;
  }

  Command RunCommand(const std::string& line) {
    std::istringstream words(line);
    std::string command, argument, extra;
    words >> command >> argument >> extra;
    if (command == ".quit" || command == ".exit" || command == ".q") return Command::kQuit;
    if (command == ".help") {
      fmt::print("{}", kShellHelp);
      return Command::kDone;
    }
    if (!extra.empty()) return Fail(command + " takes at most one argument");
    if (command == ".mode") {
      if (argument == "box" || argument == "duckbox") argument = "table";
      if (argument != "table" && argument != "csv" && argument != "json") {
        return Fail(".mode takes table, box, duckbox, csv or json, got '" + argument + "'");
      }
      options_.format = argument;
      return Command::kDone;
    }
    if (command == ".timer") {
      if (argument != "on" && argument != "off") return Fail(".timer takes on or off");
      timer_ = argument == "on";
      return Command::kDone;
    }
    std::string statement;
    if (command == ".tables") {
      statement = "SHOW TABLES;";
    } else if (command == ".schema") {
      if (!argument.empty()) {
        statement = "DESCRIBE " + argument + ";";
      } else {
        auto names = session_->Execute("SHOW TABLES");
        if (!names.ok()) return Fail(names.status().message());
        const Array& column = names->batch.column(0);
        for (int64_t i = 0; i < column.length(); ++i) {
          fmt::print("{}:\n", column.GetView(i));
          std::string describe = "DESCRIBE \"" + std::string(column.GetView(i)) + "\";";
          if (!Execute(&describe)) return Command::kFailed;
        }
        return Command::kDone;
      }
    } else if (command == ".read") {
      if (argument.empty()) return Fail(".read takes a file name");
      auto text = ReadTextFile(argument);
      if (!text.ok()) return Fail(text.status().message());
      statement = std::move(*text);
    } else {
      return Fail("unknown command " + command + " (.help lists the commands)");
    }
    return Execute(&statement) ? Command::kDone : Command::kFailed;
  }

  sql::Session* session_;
  SqlOptions options_;
  bool timer_;
  LineReader reader_;
};

}  // namespace

Result<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The distributed runner's backend is Dask, a Python library: the run goes to the Python
// package's flotilla.sql_cli, found next to this program (build/python).
int RunSqlOnDask(const SqlOptions& options, const std::string& text) {
  std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string python_dir = std::filesystem::path(exe).parent_path() / "python";
  const char* old = std::getenv("PYTHONPATH");
  std::string path = python_dir + (old != nullptr && *old ? ":" + std::string(old) : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<std::string> args{"/usr/bin/python3", "-m",       "flotilla.sql_cli", "--runner",
                                options.runner,     "--format", options.format};
  if (!options.output.empty()) {
    args.push_back("--output");
    args.push_back(options.output);
  }
  if (options.workers > 0) {
    args.push_back("--workers");
    args.push_back(std::to_string(options.workers));
  }
  for (const std::string& t : options.tables) {
    args.push_back("--tables");
    args.push_back(t);
  }
  args.push_back(text);
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  RestoreSignals();
  execv(argv[0], argv.data());
  fmt::print(stderr, "Error: cannot start /usr/bin/python3 for the Dask runner\n");
  return 1;
}

int RunSql(const SqlOptions& options) {
  sql::Session session;
  auto fail = [](const Status& s) {
    fmt::print(stderr, "Error: {}\n", s.message());
    return 1;
  };
  if (options.threads > 0) {
    if (auto s = session.Set("threads", std::to_string(options.threads)); !s.ok()) return fail(s);
  }
  if (!options.memory_limit.empty()) {
    if (auto s = session.Set("memory_limit", options.memory_limit); !s.ok()) return fail(s);
  }
  for (const std::string& setting : options.settings) {
    const size_t eq = setting.find('=');
    if (eq == std::string::npos)
      return fail(Status::Invalid("--set takes name=value, got '" + setting + "'"));
    if (auto s = session.Set(setting.substr(0, eq), setting.substr(eq + 1)); !s.ok())
      return fail(s);
  }
  for (const std::string& dir : options.tables) {
    if (auto s = session.RegisterDirectory(dir); !s.ok()) return fail(s);
  }
  std::string text = options.query;
  if (!options.file.empty()) {
    auto contents = ReadTextFile(options.file);
    if (!contents.ok()) return fail(contents.status());
    text = std::move(*contents);
  }
  std::string runner = options.runner;
  if (runner == "local" && std::getenv("FLOTILLA_RUNNER") != nullptr)
    runner = std::getenv("FLOTILLA_RUNNER");
  // The Dask runner, or another process's (session=PATH), lives in Python.
  const bool python_runner = runner.rfind("dask", 0) == 0 || runner.rfind("session=", 0) == 0;
  if (python_runner && !text.empty()) {
    SqlOptions o = options;
    o.runner = runner;
    return RunSqlOnDask(o, text);
  }
  if (runner != "local" && !python_runner) {
    return fail(Status::Invalid(
        "--runner: expected local, dask, dask=ADDRESS or session=PATH, got '" + runner + "'"));
  }
  if (text.empty()) return Shell(&session, options).Run();
  sql::Session::StatementDone timer;
  if (options.timer) {
    timer = [](const sql::StatementResult&, double seconds) {
      fmt::print(stderr, "time: {:.3f} s\n", seconds);
    };
  }
  if (options.format == "table") {
    // The table shows the head and tail of the rows, so it holds them all.
    auto result = session.Execute(text, timer);
    if (!result.ok()) return fail(result.status());
    if (auto s = Print(*result, options); !s.ok()) return fail(s);
    return 0;
  }
  // csv and json stream the last query's rows as they come.
  std::unique_ptr<io::FormatWriter> writer;
  sql::Session::RowConsumer consumer;
  consumer.begin = [&](const SchemaPtr& schema) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(writer, OpenWriter(schema, options));
    return Status::OK();
  };
  consumer.batch = [&](const RecordBatch& batch) { return writer->Write(batch); };
  auto result = session.Execute(text, timer, &consumer);
  if (!result.ok()) {
    writer.reset();
    Discard(options);
    return fail(result.status());
  }
  if (writer) {
    Status s = writer->Close();
    if (s.ok()) s = Commit(options);
    if (!s.ok()) {
      Discard(options);
      return fail(s);
    }
    return 0;
  }
  if (auto s = Print(*result, options); !s.ok()) return fail(s);
  return 0;
}

}  // namespace flotilla::cli
