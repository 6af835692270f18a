// io::csv: one splitting rule (empty fields kept, blanks trimmed), strict finite numbers with
// places, %.12g numbers without -0, the bounded file reader with path:line:col errors.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"
#include "support/error_of.hpp"

#include <tendyn/io/csv.hpp>

#include <cmath>
#include <fstream>
#include <vector>

namespace {

namespace fs = std::filesystem;
using tendyn::test::error_of;
using namespace tendyn::io;

TEST(Csv, SplitKeepsEmptyFieldsAndTrims) {
  EXPECT_EQ(split_fields("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split_fields("a,"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(split_fields(" x_m ,\ty\r"), (std::vector<std::string>{"x_m", "y"}));
  EXPECT_TRUE(split_fields("").empty());
  EXPECT_TRUE(split_fields(" \r").empty());
  EXPECT_EQ(split_fields("2x3", 'x'), (std::vector<std::string>{"2", "3"}));
}

TEST(Csv, ParseFiniteIsStrictAndNamesThePlace) {
  EXPECT_EQ(parse_finite(" 1.5e-3 ", "w"), 1.5e-3);
  EXPECT_EQ(error_of([] { (void)parse_finite("1.5x", "--wrench"); }), "--wrench: '1.5x' is not a finite number");
  EXPECT_EQ(error_of([] { (void)parse_finite("inf", "p"); }), "p: 'inf' is not a finite number");
  EXPECT_EQ(error_of([] { (void)parse_finite("nan", "p"); }), "p: 'nan' is not a finite number");
  EXPECT_EQ(error_of([] { (void)parse_finite("1e400", "p"); }), "p: '1e400' is not a finite number");
  EXPECT_EQ(error_of([] { (void)parse_finite("", "p"); }), "p: empty field, a number is expected");
  EXPECT_EQ(parse_finite_list("1, 2,3", "--q"), (std::vector<double>{1, 2, 3}));
  EXPECT_TRUE(parse_finite_list("", "--q").empty());
  EXPECT_EQ(error_of([] { (void)parse_finite_list("1,,3", "--q"); }), "--q (entry 2): empty field, a number is expected");
}

// Before: strtod's hexadecimal floating point ("0x1p3" = 8) was accepted in CSV files and option
// lists while YAML model files refuse it. One rule now: numbers are decimal.
TEST(Csv, HexadecimalNumbersAreRefusedLikeInYaml) {
  EXPECT_EQ(error_of([] { (void)parse_finite("0x1p3", "--a"); }),
            "--a: '0x1p3' is not a finite number (numbers are decimal: hexadecimal is not accepted)");
  EXPECT_EQ(error_of([] { (void)parse_finite("-0X10", "p"); }),
            "p: '-0X10' is not a finite number (numbers are decimal: hexadecimal is not accepted)");
  EXPECT_EQ(error_of([] { (void)parse_finite_list("1,0x2", "--q"); }),
            "--q (entry 2): '0x2' is not a finite number (numbers are decimal: hexadecimal is not accepted)");
  EXPECT_EQ(parse_finite("8e0", "p"), 8.0);
  const auto d = tendyn::test::fresh_dir("io_csv_hex");
  std::ofstream(d / "hex.csv") << "t_s,x_m\n0,0x1p-2\n";
  CsvReader r(d / "hex.csv");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { (void)r.number(1); }),
            (d / "hex.csv").string() + ":2:3 (x_m): '0x1p-2' is not a finite number (numbers are decimal: hexadecimal is not accepted)");
  fs::remove_all(d);
}

TEST(Csv, NumbersAreTwelveDigitsWithoutNegativeZero) {
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.333333333333");
  EXPECT_EQ(format_number(1.0 / 3.0, 17), "0.33333333333333331");
  EXPECT_EQ(format_number(1e-300), "1e-300");
  CsvLine line;
  line.num(0.5).text("ok").integer(3).flag(true).nums(std::vector<double>{-0.0, 2.0});
  EXPECT_EQ(line.str(), "0.5,ok,3,1,0,2");
  line.clear();
  EXPECT_EQ(line.num(1.0).str(), "1");
  // written numbers read back exactly at 17 digits
  const double x = std::nextafter(0.1, 1.0);
  EXPECT_EQ(parse_finite(format_number(x, 17), "x"), x);
}

TEST(Csv, ReaderGivesRowsColumnsAndPlaces) {
  const auto d = tendyn::test::fresh_dir("io_csv_reader");
  const auto p = d / "poses.csv";
  std::ofstream(p) << "# a comment\nt_s, x,y_m\n0,1,2\n\n0.1, 1.5 ,\n0.2,abc,3\n0.3,1\n";
  CsvReader r(p);
  EXPECT_EQ(r.header(), (std::vector<std::string>{"t_s", "x", "y_m"}));
  EXPECT_EQ(r.find_column("t", "_s"), 0);
  EXPECT_EQ(r.find_column("x", "_m"), 1);
  EXPECT_EQ(r.find_column("y", "_m"), 2);
  EXPECT_EQ(r.find_column("z", "_m"), -1);
  EXPECT_EQ(error_of([&] { (void)r.require_column("z", "_m"); }), p.string() + ":2: missing column 'z' (or 'z_m')");  // the header's line
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.line(), 3);
  EXPECT_EQ(r.number(2), 2.0);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.line(), 5);
  EXPECT_EQ(r.number(1), 1.5);
  EXPECT_TRUE(r.empty(2));  // a missing value is an empty field, the caller decides
  EXPECT_EQ(error_of([&] { (void)r.number(2); }), p.string() + ":5:11 (y_m): empty field, a number is expected");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { (void)r.number(1); }), p.string() + ":6:5 (x): 'abc' is not a finite number");
  EXPECT_EQ(error_of([&] { (void)r.next(); }), p.string() + ":7: 2 fields, header has 3");
  fs::remove_all(d);
}

TEST(Csv, OptionalHeaderIsTheFirstLineWithoutANumber) {
  const auto d = tendyn::test::fresh_dir("io_csv_optional_header");
  std::ofstream(d / "named.csv") << "# drive\nt_s,u_m\n0,0\n1,0.01\n";
  CsvReader named(d / "named.csv", {}, CsvHeader::kOptional);
  EXPECT_EQ(named.header(), (std::vector<std::string>{"t_s", "u_m"}));
  EXPECT_EQ(named.ncolumn(), 2);
  ASSERT_TRUE(named.next());
  EXPECT_EQ(named.line(), 3);
  EXPECT_EQ(named.number(1), 0.0);

  // No header: the first line is the first row, every row has its width, errors name the column.
  std::ofstream(d / "bare.csv") << "\n0,0.5,1\n1,abc,2\n2,3\n";
  CsvReader bare(d / "bare.csv", {}, CsvHeader::kOptional);
  EXPECT_TRUE(bare.header().empty());
  EXPECT_EQ(bare.ncolumn(), 3);
  ASSERT_TRUE(bare.next());
  EXPECT_EQ(bare.line(), 2);
  EXPECT_EQ(bare.number(1), 0.5);
  ASSERT_TRUE(bare.next());
  EXPECT_EQ(error_of([&] { (void)bare.number(1); }), (d / "bare.csv").string() + ":3:3 (column 2): 'abc' is not a finite number");
  EXPECT_EQ(error_of([&] { (void)bare.next(); }), (d / "bare.csv").string() + ":4: 2 fields, the first row has 3");

  // A first line with one number is data, so a typo in it is reported, not taken as a header.
  std::ofstream(d / "typo.csv") << "0,1x\n1,2\n";
  CsvReader typo(d / "typo.csv", {}, CsvHeader::kOptional);
  ASSERT_TRUE(typo.next());
  EXPECT_EQ(error_of([&] { (void)typo.number(1); }), (d / "typo.csv").string() + ":1:3 (column 2): '1x' is not a finite number");
  // The required-header reader takes the same first line as a header.
  EXPECT_EQ(CsvReader(d / "typo.csv").header(), (std::vector<std::string>{"0", "1x"}));
  std::ofstream(d / "none.csv") << "# nothing\n";
  EXPECT_EQ(error_of([&] { CsvReader r(d / "none.csv", {}, CsvHeader::kOptional); }),
            (d / "none.csv").string() + ":1: empty file (expected rows of numbers)");
  fs::remove_all(d);
}

TEST(Csv, ReaderRefusesWhatIsNotAFileOrTooLarge) {
  const auto d = tendyn::test::fresh_dir("io_csv_refuse");
  EXPECT_EQ(error_of([&] { CsvReader r(d / "missing.csv"); }), (d / "missing.csv").string() + ": no such file");
  EXPECT_EQ(error_of([&] { CsvReader r(d); }), d.string() + ": not a regular file");
  std::ofstream(d / "empty.csv") << "# only a comment\n";
  EXPECT_EQ(error_of([&] { CsvReader r(d / "empty.csv"); }), (d / "empty.csv").string() + ":1: empty file (expected a header line)");
  std::ofstream(d / "big.csv") << std::string(2u << 20, 'a');
  EXPECT_EQ(error_of([&] { CsvReader r(d / "big.csv", {.max_bytes = 1u << 20}); }),
            (d / "big.csv").string() + ": file is larger than the limit of 1 MiB");
  std::ofstream(d / "hole.csv") << "t_s,,x\n";
  EXPECT_EQ(error_of([&] { CsvReader r(d / "hole.csv"); }), (d / "hole.csv").string() + ":1:5: empty column name in the header");
  fs::remove_all(d);
}

}  // namespace
