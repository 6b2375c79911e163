// The native command-line tool: `seq2seq info MODEL` (decoding commands arrive
// with the decoding session).
#include <cstdio>
#include <iostream>
#include <string>

#include "errors.h"
#include "model.h"

namespace {

int usage() {
  std::cerr << "usage:\n"
               "  seq2seq info MODEL     print a model's configuration, size and vocabularies\n";
  return 2;
}

void print_vocab(const char* title, const seq2seq::Vocabulary& v) {
  std::cout << title << " (" << v.size() << "):";
  for (const auto& t : v.tokens()) std::cout << ' ' << t;
  std::cout << '\n';
}

int info(const std::string& path) {
  const auto model = seq2seq::Model::from_file(path);
  const auto& c = model->config();
  std::cout << "name:            " << (c.name.empty() ? "(unnamed)" : c.name) << '\n';
  if (!c.description.empty()) std::cout << "description:     " << c.description << '\n';
  std::cout << "architecture:    " << seq2seq::to_string(c.arch) << (c.autoregressive() ? " (autoregressive)" : " (non-autoregressive, Mask-Predict)") << '\n'
            << "layers:          " << c.enc_layers << " encoder, " << c.dec_layers << " decoder\n"
            << "width:           d_model " << c.d_model << ", " << c.n_heads << " heads of " << c.head_dim() << ", FFN " << c.d_ff
            << " (" << seq2seq::to_string(c.activation) << ")\n"
            << "layer norm:      " << seq2seq::to_string(c.norm) << "-LN, eps " << c.ln_eps << '\n'
            << "positions:       " << seq2seq::to_string(c.pos) << ", " << c.max_pos << " max\n"
            << "embedding:       " << (c.scale_embedding ? "scaled by sqrt(d_model)" : "unscaled") << ", output "
            << (c.tie_output ? "tied to target embedding" : "untied") << '\n';
  if (c.arch == seq2seq::Arch::Cmlm) std::cout << "length head:     lengths 0.." << c.max_target_len << '\n';
  std::cout << "parameters:      " << model->parameter_count() << '\n'
            << "file size:       " << model->file_bytes() << " bytes (" << (model->stored_f16() ? "f16" : "f32") << " storage)\n";
  print_vocab("source vocabulary", model->source_vocab());
  print_vocab("target vocabulary", model->target_vocab());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  try {
    if (cmd == "info" && argc == 3) return info(argv[2]);
    return usage();
  } catch (const seq2seq::Error& e) {
    std::cerr << "seq2seq: " << e.what() << '\n';
    return 1;
  }
}
