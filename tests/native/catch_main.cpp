// The one translation unit that holds Catch2's main().
//
// ctest runs the suite once per instruction set this build carries, with
// SEQ2SEQ_ISA naming it (CMakeLists.txt). One this CPU cannot run is skipped
// (exit 77, ctest's SKIP_RETURN_CODE) rather than failing every test.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

#include "kernel_set.h"

int main(int argc, char** argv) {
  if (const char* isa = std::getenv("SEQ2SEQ_ISA")) {
    bool carried = false, runs = false;
    for (const seq2seq::KernelSet* k : seq2seq::carried_kernel_sets()) carried = carried || isa == std::string(k->isa);
    for (const seq2seq::KernelSet* k : seq2seq::runnable_kernel_sets()) runs = runs || isa == std::string(k->isa);
    if (carried && !runs) {
      std::cout << "skipped: this CPU cannot run the " << isa << " kernels\n";
      return 77;
    }
    if (runs) std::cout << "kernels: " << isa << " (SEQ2SEQ_ISA)\n";
  }
  return Catch::Session().run(argc, argv);
}
