fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    for e in actionstream::parse_str(&text) { println!("{e:?}"); }
}
