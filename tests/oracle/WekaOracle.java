// Numeric oracle for seminaive's unit tests: thin wrapper around Weka 3.6's API.
//
// Build (do not commit the .class files):
//   javac -cp /usr/share/java/weka.jar -d /tmp/oracle tests/oracle/WekaOracle.java
//
// Usage:
//   java -cp /usr/share/java/weka.jar:/tmp/oracle WekaOracle classify TRAIN.arff TEST.arff CLASSNAME [OPTIONS...]
//       Trains CLASSNAME (with Weka options) on TRAIN (class = last attribute)
//       and prints JSON {"classifier", "options", "distributions"} where
//       distributions[i] = distributionForInstance(test instance i).
//   java -cp /usr/share/java/weka.jar:/tmp/oracle WekaOracle cuts DATA.arff [FILTER OPTIONS...]
//       Fits weka.filters.supervised.attribute.Discretize (with the given
//       options, default = Fayyad & Irani MDL) and prints JSON
//       {"filter", "options", "cuts": {attribute name: [cut points]}}.
//
// Doubles are printed with Double.toString, which round-trips exactly.

import java.io.BufferedReader;
import java.io.FileReader;
import java.util.Arrays;

import weka.classifiers.Classifier;
import weka.core.Instances;
import weka.core.Utils;
import weka.filters.Filter;
import weka.filters.supervised.attribute.Discretize;

public class WekaOracle {

  static Instances load(String path) throws Exception {
    BufferedReader r = new BufferedReader(new FileReader(path));
    Instances data = new Instances(r);
    r.close();
    data.setClassIndex(data.numAttributes() - 1);
    return data;
  }

  static String str(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\');
      b.append(c);
    }
    return b.append('"').toString();
  }

  static String num(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) return "null";
    return Double.toString(d);
  }

  static String strList(String[] a) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < a.length; i++) b.append(i > 0 ? ", " : "").append(str(a[i]));
    return b.append(']').toString();
  }

  static String numList(double[] a) {
    StringBuilder b = new StringBuilder("[");
    if (a != null)
      for (int i = 0; i < a.length; i++) b.append(i > 0 ? ", " : "").append(num(a[i]));
    return b.append(']').toString();
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    if (mode.equals("classify")) {
      Instances train = load(args[1]);
      Instances test = load(args[2]);
      String[] opts = Arrays.copyOfRange(args, 4, args.length);
      Classifier c = Classifier.forName(args[3], opts.clone());
      c.buildClassifier(train);
      StringBuilder out = new StringBuilder("{\"classifier\": " + str(args[3]));
      out.append(", \"options\": " + strList(opts));
      out.append(", \"weka_options\": " + strList(((weka.core.OptionHandler) c).getOptions()));
      out.append(", \"distributions\": [");
      for (int i = 0; i < test.numInstances(); i++) {
        out.append(i > 0 ? ", " : "").append(numList(c.distributionForInstance(test.instance(i))));
      }
      out.append("]}");
      System.out.println(out);
    } else if (mode.equals("cuts")) {
      Instances data = load(args[1]);
      String[] opts = Arrays.copyOfRange(args, 2, args.length);
      Discretize d = new Discretize();
      d.setOptions(opts.clone());
      d.setInputFormat(data);
      Filter.useFilter(data, d);
      StringBuilder out = new StringBuilder("{\"filter\": \"weka.filters.supervised.attribute.Discretize\"");
      out.append(", \"options\": " + strList(opts));
      out.append(", \"weka_options\": " + strList(d.getOptions()));
      out.append(", \"cuts\": {");
      boolean first = true;
      for (int i = 0; i < data.numAttributes(); i++) {
        if (i == data.classIndex()) continue;
        out.append(first ? "" : ", ").append(str(data.attribute(i).name())).append(": ");
        out.append(numList(d.getCutPoints(i)));
        first = false;
      }
      out.append("}}");
      System.out.println(out);
    } else {
      throw new IllegalArgumentException("mode must be 'classify' or 'cuts'");
    }
  }
}
